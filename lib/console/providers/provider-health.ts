import "server-only";
import { type Config, getConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { accountSums } from "@/lib/ledger/account-sums";
import { providerReceivable } from "@/lib/ledger/accounts";
import { D, formatAmount } from "@/lib/money/decimal";
import { quantileOf } from "@/lib/providers/call-stats";
import { PROVIDERS } from "@/lib/providers/registry";

// The console's Providers page (issue 52, point 7): per provider, whether it takes new orders
// (its setting, and an operator's run-time switch over it), the success rate and p95 latency
// of its calls, its last errors, its share of holds and refunds over 30 days, and the
// commission it owes.

const DAYS = 30;

export interface ProviderHealth {
  name: string;
  label: string;
  /** Its credentials are set: it has an adapter (it reads the orders it holds even when not enabled). */
  configured: boolean;
  enabledBySetting: boolean;
  /** An operator's switch over the setting (null: none). */
  switched: { enabled: boolean; at: string; by: string | null } | null;
  /** Takes new orders now: configured, and switched on, or enabled by its setting without a switch. */
  enabled: boolean;
  calls: { total: number; failures: number; successRate: string | null; p95Ms: string | null; last24h: number };
  lastErrors: { at: string; call: string; message: string }[];
  orders: { total: number; held: number; refunded: number; heldShare: string | null; refundedShare: string | null };
  commissionReceivable: { currency: string; amount: string }[];
}

/** A share as a decimal fraction with 4 places ("0.0125"), exact; null over nothing. */
const share = (part: number, whole: number) => (whole ? new D(part).div(whole).toDecimalPlaces(4, D.ROUND_HALF_UP).toFixed(4) : null);

function isConfigured(cfg: Config, p: (typeof PROVIDERS)[number]): boolean {
  // Every credential its adapter needs is set (the adapter itself is made by the engine).
  return p.credentials.every((k) => {
    const v = (cfg as unknown as Record<string, unknown>)[k];
    return v !== undefined && v !== null && v !== "";
  });
}

export async function providerHealth(db: Db, opts: { now?: Date } = {}): Promise<ProviderHealth[]> {
  const now = opts.now ?? new Date();
  const since = new Date(now.getTime() - DAYS * 86_400_000);
  const dayAgo = new Date(now.getTime() - 86_400_000);
  const cfg = getConfig();
  const [switches, hours, orders, held, refunded, receivable] = await Promise.all([
    db.providerSwitch.findMany(),
    db.providerCallHour.findMany({ where: { hour: { gte: since } } }),
    db.order.groupBy({ by: ["provider"], where: { provider: { not: null }, createdAt: { gte: since } }, _count: { _all: true } }),
    db.upstreamStatusEvent.findMany({
      where: { reason: "hold", at: { gte: since } },
      select: { orderId: true, provider: true },
      distinct: ["orderId"],
    }),
    db.order.groupBy({
      by: ["provider"],
      where: { provider: { not: null }, createdAt: { gte: since }, status: "failed", refundState: { not: null } },
      _count: { _all: true },
    }),
    accountSums(db, "provider:"),
  ]);
  return Promise.all(
    PROVIDERS.map(async (p) => {
      const sw = switches.find((s) => s.provider === p.name) ?? null;
      const mine = hours.filter((h) => h.provider === p.name);
      const buckets: Record<string, number> = {};
      for (const h of mine)
        for (const [b, n] of Object.entries(JSON.parse(h.buckets) as Record<string, number>)) buckets[b] = (buckets[b] ?? 0) + n;
      const total = mine.reduce((a, h) => a + h.calls, 0);
      const failures = mine.reduce((a, h) => a + h.failures, 0);
      const lastErrors = await db.providerCallError.findMany({ where: { provider: p.name }, orderBy: { id: "desc" }, take: 10 });
      const orderCount = orders.find((o) => o.provider === p.name)?._count._all ?? 0;
      const heldCount = held.filter((h) => h.provider === p.name).length;
      const refundedCount = refunded.find((o) => o.provider === p.name)?._count._all ?? 0;
      const configured = isConfigured(cfg, p);
      const enabledBySetting = Boolean((cfg as unknown as Record<string, unknown>)[p.enabledBy]);
      const account = providerReceivable(p.name);
      return {
        name: p.name,
        label: p.label,
        configured,
        enabledBySetting,
        switched: sw ? { enabled: sw.enabled, at: sw.updatedAt.toISOString(), by: sw.updatedBy } : null,
        enabled: configured && cfg.ENGINE === "providers" && (sw ? sw.enabled : enabledBySetting),
        calls: {
          total,
          failures,
          successRate: share(total - failures, total),
          p95Ms: quantileOf(buckets, 0.95),
          last24h: mine.filter((h) => h.hour >= new Date(dayAgo.getTime() - 3600_000 + 1)).reduce((a, h) => a + h.calls, 0),
        },
        lastErrors: lastErrors.map((e) => ({ at: e.at.toISOString(), call: e.call, message: e.message })),
        orders: {
          total: orderCount,
          held: heldCount,
          refunded: refundedCount,
          heldShare: share(heldCount, orderCount),
          refundedShare: share(refundedCount, orderCount),
        },
        commissionReceivable: [...receivable]
          .filter(([key, sum]) => key.startsWith(`${account} `) && !sum.isZero())
          .map(([key, sum]) => ({ currency: key.split(" ")[1], amount: formatAmount(sum.neg()) })),
      };
    }),
  );
}
