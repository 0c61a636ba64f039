import "server-only";
import type { Db } from "@/lib/db/client";
import type { IntentHooks, OpenedSwap } from "@/lib/engine/types";
import { newId } from "@/lib/ids";
import { D } from "@/lib/money/decimal";

// Intents (docs/providers.md, "No orphan exchanges"): before an upstream engine asks a
// provider to create an exchange for an order, a row says so; the provider's answer (its id
// and what the order opens with) is written to it before the order is committed. An intent
// stays open (outcome null) until the order commits with that exchange, or the worker
// resolves it after a crash (recover-intents.ts): adopted into the order, or recorded as
// abandoned (the exchange exists, the order does not) or unknown (the provider may hold an
// exchange under our order id as its external id, and we never learnt its id).

export type IntentOutcome = "committed" | "adopted" | "abandoned" | "not_created" | "unknown";

/** An OpenedSwap as JSON (decimals as strings, dates as ISO strings). */
export function serializeOpened(s: OpenedSwap): string {
  return JSON.stringify({
    payinAddress: s.payinAddress,
    payinExtraId: s.payinExtraId,
    firstCheckAfterMs: s.firstCheckAfterMs,
    upstream: s.upstream ?? null,
    terms: s.terms
      ? {
          rate: s.terms.rate.toFixed(),
          rawToAmount: s.terms.rawToAmount.toFixed(),
          toAmount: s.terms.toAmount.toFixed(),
          profit: s.terms.profit.toFixed(),
        }
      : null,
    expiresAt: s.expiresAt ? s.expiresAt.toISOString() : null,
  });
}

export function parseOpened(json: string): OpenedSwap {
  const o = JSON.parse(json) as {
    payinAddress: string;
    payinExtraId: string | null;
    firstCheckAfterMs: number | null;
    upstream: OpenedSwap["upstream"] | null;
    terms: { rate: string; rawToAmount: string; toAmount: string; profit: string } | null;
    expiresAt: string | null;
  };
  return {
    payinAddress: o.payinAddress,
    payinExtraId: o.payinExtraId,
    firstCheckAfterMs: o.firstCheckAfterMs,
    ...(o.upstream ? { upstream: o.upstream } : {}),
    ...(o.terms
      ? {
          terms: {
            rate: new D(o.terms.rate),
            rawToAmount: new D(o.terms.rawToAmount),
            toAmount: new D(o.terms.toAmount),
            profit: new D(o.terms.profit),
          },
        }
      : {}),
    ...(o.expiresAt ? { expiresAt: new Date(o.expiresAt) } : {}),
  };
}

/** The hooks the engine calls around each upstream create of one order. */
export function intentHooks(db: Db): IntentHooks {
  return {
    async creating({ orderId, provider, externalId }) {
      const id = newId();
      await db.upstreamIntent.create({ data: { id, orderId, provider, externalId } });
      return id;
    },
    async created(id, swap) {
      await db.upstreamIntent.update({
        where: { id },
        data: { upstreamId: swap.upstream?.id ?? null, opened: serializeOpened(swap) },
      });
    },
    async notCreated(id) {
      await resolveIntent(db, id, "not_created");
    },
  };
}

/** Closes an open intent (once: a concurrent resolver's outcome stands). */
export async function resolveIntent(db: Db, id: string, outcome: IntentOutcome, now = new Date()): Promise<boolean> {
  const r = await db.upstreamIntent.updateMany({ where: { id, outcome: null }, data: { outcome, resolvedAt: now } });
  return r.count === 1;
}

/**
 * An exchange a provider already created for this still unopened order (its opening request
 * died after the answer was recorded): the order is opened with it rather than with a second one.
 */
export async function adoptableSwap(db: Db, orderId: string): Promise<{ intentId: string; swap: OpenedSwap } | null> {
  const i = await db.upstreamIntent.findFirst({
    where: { orderId, outcome: null, opened: { not: null } },
    orderBy: { createdAt: "desc" },
  });
  return i?.opened ? { intentId: i.id, swap: parseOpened(i.opened) } : null;
}

/** The order committed with this exchange: its intent is closed. */
export async function markCommitted(db: Db, orderId: string, swap: OpenedSwap, outcome: "committed" | "adopted" = "committed") {
  if (!swap.upstream) return;
  await db.upstreamIntent.updateMany({
    where: { orderId, provider: swap.upstream.provider, upstreamId: swap.upstream.id, outcome: null },
    data: { outcome, resolvedAt: new Date() },
  });
}

/**
 * Exchanges the operator should know of: intents settled as abandoned (made, never shown) or
 * unknown (the provider's answer never arrived), newest first.
 */
export function listOrphanIntents(db: Db, opts: { limit?: number } = {}) {
  return db.upstreamIntent.findMany({
    where: { outcome: { in: ["abandoned", "unknown"] } },
    orderBy: { createdAt: "desc" },
    take: opts.limit ?? 100,
  });
}
