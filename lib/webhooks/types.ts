// Webhook endpoints and deliveries as the dashboard shows them. Plain data only; imported by
// client code (through lib/dashboard/types.ts): no server-only imports here.

/** A webhook endpoint as the dashboard shows it (never its secret). */
export interface EndpointView {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  disabledReason: string | null;
  disabledAt: string | null;
  consecutiveFailures: number;
  createdAt: string;
  /** Until when the previous secret still signs too, after a rotation. */
  previousSecretUntil: string | null;
}

/** One delivery of an event to an endpoint, with its attempts. */
export interface DeliveryView {
  id: number;
  messageId: string;
  type: string;
  subject: string | null;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  lastLatencyMs: number | null;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  log: { at: string; statusCode: number | null; latencyMs: number; error: string | null }[];
}

/** A page of an endpoint's deliveries, newest first: `older` is the cursor of the next page, null on the last. */
export interface DeliveryPage {
  items: DeliveryView[];
  older: string | null;
}
