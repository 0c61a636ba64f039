// The webhook event types (a shared module: pure, imported by the dashboard too). An
// endpoint subscribes to some of them, or to every one ("*", including those added later).

/** order.action_required: the order's requiredAction became non-null or changed (lib/orders/announce.ts). */
export const ORDER_EVENT_TYPES = ["order.created", "order.status_changed", "order.action_required"] as const;
export const WITHDRAWAL_EVENT_TYPES = ["withdrawal.created", "withdrawal.status_changed"] as const;
/** Sent only to the endpoint it was asked for (the dashboard's "Send test event"). */
export const TEST_EVENT_TYPE = "webhook.test";

export const WEBHOOK_EVENT_TYPES = [...ORDER_EVENT_TYPES, ...WITHDRAWAL_EVENT_TYPES] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number] | typeof TEST_EVENT_TYPE;

/** An endpoint's filter: "*" or a list of event types. */
export function acceptsEvent(filter: readonly string[], type: string): boolean {
  return type === TEST_EVENT_TYPE || filter.includes("*") || filter.includes(type);
}
