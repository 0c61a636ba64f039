import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { releaseLease, takeLease } from "@/lib/jobs/lease";
import { orderRow } from "../support/orders";
import { type TempDb, tempDatabase } from "../support/sqlite-db";

// The one lease helper of the workers (orders, withdrawals, webhook deliveries): a row is
// taken by one lease at a time, a lease that ran out can be taken again, and only the
// lease's holder can end it.

describe.each(["sqlite", "postgres"] as const)("leases on %s", (kind) => {
  let t: TempDb;
  let db: Db;
  const now = new Date();
  const later = (ms: number) => new Date(now.getTime() + ms);
  const leaseOf = async (id: string) => db.order.findUniqueOrThrow({ where: { id }, select: { leaseToken: true, leaseUntil: true } });
  let n = 0;
  const seed = async (count: number, status = "waiting") => {
    const ids = Array.from({ length: count }, () => `${kind.slice(0, 2)}${String(++n).padStart(22, "0")}`);
    await db.order.createMany({ data: ids.map((id) => orderRow(id, { status })) });
    return ids;
  };

  beforeAll(async () => {
    t = await tempDatabase(kind);
    db = t.db;
  });
  afterAll(() => t?.cleanup());

  it("takes the rows the filter still matches, once, until the lease runs out", async () => {
    const ids = await seed(3);
    const [done] = await seed(1, "finished");
    const first = await takeLease(db, "order", { ids: [...ids, done], where: { status: "waiting" }, now, ms: 30_000 });
    expect(first.taken).toBe(3);
    expect(await leaseOf(ids[0])).toEqual({ leaseToken: first.token, leaseUntil: later(30_000) });
    expect(await leaseOf(done)).toEqual({ leaseToken: null, leaseUntil: null });
    // Held: nobody else takes them, however often they ask.
    expect((await takeLease(db, "order", { ids, where: {}, now: later(29_999), ms: 30_000 })).taken).toBe(0);
    // Run out: the next taker gets them under its own token.
    const next = await takeLease(db, "order", { ids, where: {}, now: later(30_000), ms: 30_000 });
    expect(next).toMatchObject({ taken: 3 });
    expect(next.token).not.toBe(first.token);
    expect((await leaseOf(ids[2])).leaseToken).toBe(next.token);
  });

  it("of takers racing for the same rows, each row goes to one of them", async () => {
    const ids = await seed(20);
    const takes = await Promise.all(
      Array.from({ length: 4 }, () => takeLease(db, "order", { ids, where: { status: "waiting" }, now, ms: 30_000 })),
    );
    expect(takes.reduce((s, x) => s + x.taken, 0)).toBe(20);
    const rows = await db.order.findMany({ where: { id: { in: ids } }, select: { leaseToken: true } });
    for (const r of rows) expect(takes.map((x) => x.token)).toContain(r.leaseToken);
  });

  it("only the holder ends a lease, writing its outcome with it", async () => {
    const [id] = await seed(1);
    const { token } = await takeLease(db, "order", { ids: [id], where: {}, now, ms: 30_000 });
    expect(await releaseLease(db, "order", id, "someone-else", { attempts: 9 })).toEqual({ count: 0 });
    expect(await releaseLease(db, "order", id, token, { attempts: 9 }, { status: "finished" })).toEqual({ count: 0 });
    expect((await leaseOf(id)).leaseToken).toBe(token);
    expect(await releaseLease(db, "order", id, token, { attempts: 2, lastError: "timeout" })).toEqual({ count: 1 });
    expect(await db.order.findUniqueOrThrow({ where: { id } })).toMatchObject({
      leaseToken: null,
      leaseUntil: null,
      attempts: 2,
      lastError: "timeout",
    });
    // Released: free for the next taker at once.
    expect((await takeLease(db, "order", { ids: [id], where: {}, now, ms: 30_000 })).taken).toBe(1);
  });
});
