import "server-only";
import { getConfig } from "@/lib/config";
import type { Db, Order } from "@/lib/db/client";
import { OPEN_STATES, type OrderState } from "@/lib/domain/order-states";
import { listOrphanIntents } from "@/lib/orders/intents";
import { moneyQueueItems } from "./money/queue-items";
import { dismissedOrphanIds } from "./orders/dismiss-orphan";

// The console's queue (issue 52, docs/operator.md "Orders and the queue"): what needs a person,
// oldest first, with how long it has waited. Each kind comes from a source: a function that
// reads its rows and answers items. Another domain adds its kinds with one line in
// QUEUE_SOURCES (withdrawal_stuck, withdrawal_awaiting_approval, reconciliation_difference,
// hot_wallet_low).

export interface QueueItem {
  kind: string;
  targetType: "order" | "withdrawal" | "reseller" | "provider" | "upstream_intent" | "reconciliation" | "hot_wallet";
  targetId: string;
  /** When the situation began: the reason appeared, the order entered its state, the refund failed. */
  since: Date;
  summary: string;
  /** The reseller concerned, when one is. */
  resellerId: string | null;
  provider: string | null;
  status: string | null;
  reason: string | null;
}

export interface QueueSourceContext {
  db: Db;
  now: Date;
  /** QUEUE_STUCK_MINUTES, parsed: minutes per open state. */
  stuckMinutes: Partial<Record<OrderState, number>>;
}

export interface QueueSource {
  /** The kinds this source answers (each counted, zero included). */
  kinds: readonly string[];
  read(ctx: QueueSourceContext): Promise<QueueItem[]>;
}

/** How many rows a source reads at most: the queue is a to-do list, not a report. */
const SOURCE_CAP = 500;

/** QUEUE_STUCK_MINUTES ("confirming=120,exchanging=120") as minutes per open state; other names are ignored. */
export function parseStuckMinutes(setting: string): Partial<Record<OrderState, number>> {
  const out: Partial<Record<OrderState, number>> = {};
  for (const part of setting.split(",")) {
    const [name, minutes] = part.split("=").map((s) => s.trim());
    if ((OPEN_STATES as string[]).includes(name) && /^\d+$/.test(minutes ?? "")) out[name as OrderState] = Number(minutes);
  }
  return out;
}

const orderItem = (o: Order, kind: string, since: Date, summary: string): QueueItem => ({
  kind,
  targetType: "order",
  targetId: o.id,
  since,
  summary,
  resellerId: o.resellerId,
  provider: o.provider,
  status: o.status,
  reason: o.stateReason,
});

const REASON_KINDS = { hold: "order_hold", needs_action: "order_needs_action", unknown: "order_unknown_status" } as const;

/**
 * When each order's current reason appeared: the first of the latest run of its provider's
 * statuses with that reason (UpstreamStatusEvent); the order's updatedAt when none is recorded.
 */
async function reasonSince(db: Db, orders: Order[]): Promise<Map<string, Date>> {
  const events = orders.length
    ? await db.upstreamStatusEvent.findMany({ where: { orderId: { in: orders.map((o) => o.id) } }, orderBy: { id: "desc" } })
    : [];
  const byOrder = new Map<string, typeof events>();
  for (const e of events) byOrder.set(e.orderId, [...(byOrder.get(e.orderId) ?? []), e]);
  const out = new Map<string, Date>();
  for (const o of orders) {
    let since: Date | null = null;
    for (const e of byOrder.get(o.id) ?? []) {
      if (e.reason !== o.stateReason) break;
      since = e.at;
    }
    out.set(o.id, since ?? o.updatedAt);
  }
  return out;
}

/** Open orders a provider holds for review, waits on a choice for, or reports in a status we do not know. */
const reasonSource: QueueSource = {
  kinds: Object.values(REASON_KINDS),
  async read({ db }) {
    const orders = await db.order.findMany({
      where: { status: { in: OPEN_STATES }, payinAddress: { not: null }, stateReason: { in: Object.keys(REASON_KINDS) } },
      take: SOURCE_CAP,
    });
    const since = await reasonSince(db, orders);
    return orders.map((o) => {
      const kind = REASON_KINDS[o.stateReason as keyof typeof REASON_KINDS];
      const what =
        o.stateReason === "hold"
          ? "held for review"
          : o.stateReason === "needs_action"
            ? "waits for a choice or an action"
            : "reports a status we do not know";
      return orderItem(
        o,
        kind,
        since.get(o.id) as Date,
        `${o.provider ?? "the engine"} ${what}: ${o.upstreamStatus ?? "?"} (order ${o.status})`,
      );
    });
  },
};

/** Failed orders whose refund is owed to nobody: no address was ever given. */
const refundNoAddressSource: QueueSource = {
  kinds: ["order_refund_no_address"],
  async read({ db }) {
    const orders = await db.order.findMany({ where: { status: "failed", refundState: "awaiting_address" }, take: SOURCE_CAP });
    return orders.map((o) =>
      orderItem(
        o,
        "order_refund_no_address",
        o.updatedAt,
        `failed (${o.failureReason ?? "?"}); a refund of ${o.refundAmount ?? "?"} ${o.fromCurrency} has no address`,
      ),
    );
  },
};

/**
 * Open orders in one state longer than QUEUE_STUCK_MINUTES allows for it, since they entered it
 * (their latest timeline event of that state). An order already listed for its reason (a hold,
 * a choice, an unknown status) is listed once, for its reason.
 */
const stuckSource: QueueSource = {
  kinds: ["order_stuck"],
  async read({ db, now, stuckMinutes }) {
    const items: QueueItem[] = [];
    for (const [state, minutes] of Object.entries(stuckMinutes) as [OrderState, number][]) {
      const limit = new Date(now.getTime() - minutes * 60_000);
      // Created before the limit: necessary to have entered the state before it.
      const orders = await db.order.findMany({
        where: {
          status: state,
          payinAddress: { not: null },
          createdAt: { lt: limit },
          OR: [{ stateReason: null }, { stateReason: { notIn: Object.keys(REASON_KINDS) } }],
        },
        take: SOURCE_CAP,
      });
      if (!orders.length) continue;
      const events = await db.orderEvent.findMany({
        where: { orderId: { in: orders.map((o) => o.id) }, status: state },
        orderBy: { id: "asc" },
      });
      const entered = new Map<string, Date>();
      for (const e of events) if (!entered.has(e.orderId)) entered.set(e.orderId, e.at);
      for (const o of orders) {
        const since = entered.get(o.id) ?? o.createdAt;
        if (since < limit)
          items.push(
            orderItem(
              o,
              "order_stuck",
              since,
              `${o.status} for longer than ${minutes} minutes (${o.provider ?? "engine"}: ${o.upstreamStatus ?? "-"})`,
            ),
          );
      }
    }
    return items;
  },
};

/** Exchanges a provider made that no order points to (docs/providers.md, "No orphan exchanges"). */
const orphanSource: QueueSource = {
  kinds: ["upstream_orphan"],
  async read({ db }) {
    // Those an operator dismissed (lib/console/orders/dismiss-orphan.ts) are handled.
    const [intents, dismissed] = await Promise.all([listOrphanIntents(db, { limit: SOURCE_CAP }), dismissedOrphanIds(db)]);
    return intents
      .filter((i) => !dismissed.has(i.id))
      .map((i) => ({
        kind: "upstream_orphan",
        targetType: "upstream_intent" as const,
        targetId: i.id,
        since: i.resolvedAt ?? i.createdAt,
        summary: `${i.provider} exchange ${i.upstreamId ?? "(id unknown)"} for order ${i.orderId}: ${i.outcome}`,
        resellerId: null,
        provider: i.provider,
        status: i.outcome,
        reason: null,
      }));
  },
};

/** Withdrawals stuck or awaiting approval, the last reconciliation's differences, a hot wallet below its threshold (lib/console/money). */
const moneySource: QueueSource = {
  kinds: ["withdrawal_awaiting_approval", "withdrawal_stuck", "reconciliation_difference", "hot_wallet_low"],
  read: async ({ db, now }) =>
    (await moneyQueueItems(db, { now })).map(({ reseller, ...i }) => ({ ...i, resellerId: reseller?.id ?? null })),
};

/** Every source of the queue. Another domain's kinds: one line each here. */
const QUEUE_SOURCES: QueueSource[] = [reasonSource, refundNoAddressSource, stuckSource, orphanSource, moneySource];

export interface QueueView {
  items: {
    kind: string;
    targetType: string;
    targetId: string;
    since: string;
    waitingSeconds: number;
    summary: string;
    reseller: { id: string; wallet: string } | null;
    provider: string | null;
    status: string | null;
    reason: string | null;
  }[];
  counts: Record<string, number>;
}

/** The queue now: every source's items, oldest first, with the reseller of each and a count per kind. */
export async function readQueue(opts: { db: Db; now?: Date; sources?: QueueSource[] }): Promise<QueueView> {
  const now = opts.now ?? new Date();
  const sources = opts.sources ?? QUEUE_SOURCES;
  const ctx: QueueSourceContext = { db: opts.db, now, stuckMinutes: parseStuckMinutes(getConfig().QUEUE_STUCK_MINUTES) };
  const items = (await Promise.all(sources.map((s) => s.read(ctx)))).flat();
  items.sort((a, b) => a.since.getTime() - b.since.getTime() || a.targetId.localeCompare(b.targetId));
  const resellerIds = [...new Set(items.map((i) => i.resellerId).filter((id): id is string => !!id))];
  const resellers = resellerIds.length
    ? await opts.db.reseller.findMany({ where: { id: { in: resellerIds } }, select: { id: true, walletAddress: true } })
    : [];
  const wallets = new Map(resellers.map((r) => [r.id, r.walletAddress]));
  const counts: Record<string, number> = {};
  for (const s of sources) for (const k of s.kinds) counts[k] = 0;
  for (const i of items) counts[i.kind] = (counts[i.kind] ?? 0) + 1;
  return {
    items: items.map((i) => ({
      kind: i.kind,
      targetType: i.targetType,
      targetId: i.targetId,
      since: i.since.toISOString(),
      waitingSeconds: Math.max(0, Math.floor((now.getTime() - i.since.getTime()) / 1000)),
      summary: i.summary,
      reseller: i.resellerId ? { id: i.resellerId, wallet: wallets.get(i.resellerId) ?? "" } : null,
      provider: i.provider,
      status: i.status,
      reason: i.reason,
    })),
    counts,
  };
}
