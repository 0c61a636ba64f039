import "server-only";
import crypto from "node:crypto";
import type { Tx } from "@/lib/db/client";
import { newId } from "@/lib/ids";
import { stringifyJson } from "@/lib/money/json-number";
import { acceptsEvent, type WebhookEventType } from "./events";

// The outbox: an event is written in the same transaction as the change it announces, with
// one delivery per subscribed endpoint; the worker sends them (lib/webhooks/sender.ts).

export const newMessageId = () => `msg_${newId()}`;

export function parseEventFilter(events: string): string[] {
  try {
    const v = JSON.parse(events);
    return Array.isArray(v) ? v.filter((x) => typeof x === "string") : [];
  } catch {
    return [];
  }
}

/**
 * Records an event for a reseller's endpoints. `subject` (an order id) keeps the deliveries
 * about one thing in order: the worker sends one at a time per endpoint and subject.
 * `endpointId` limits it to one endpoint (a test event).
 */
export async function enqueueEvent(
  tx: Tx,
  ev: { resellerId: string; type: WebhookEventType; subject: string | null; data: unknown; now: Date; endpointId?: string },
): Promise<string | null> {
  const endpoints = await tx.webhookEndpoint.findMany({
    where: { resellerId: ev.resellerId, enabled: true, ...(ev.endpointId ? { id: ev.endpointId } : {}) },
    select: { id: true, events: true },
  });
  const targets = endpoints.filter((e) => acceptsEvent(parseEventFilter(e.events), ev.type));
  if (!targets.length) return null;
  const id = newMessageId();
  const payload = stringifyJson({ type: ev.type, timestamp: ev.now.toISOString(), data: ev.data });
  await tx.webhookMessage.create({
    data: { id, resellerId: ev.resellerId, type: ev.type, subject: ev.subject, payload, createdAt: ev.now },
  });
  for (const t of targets)
    await tx.webhookDelivery.create({
      data: {
        endpointId: t.id,
        messageId: id,
        orderingKey: ev.subject ?? id,
        status: "pending",
        nextAttemptAt: ev.now,
        createdAt: ev.now,
      },
    });
  return id;
}

/** A new endpoint secret in the Standard Webhooks form: whsec_ + base64 of 24 random bytes. */
export const newWebhookSecret = () => `whsec_${crypto.randomBytes(24).toString("base64")}`;
