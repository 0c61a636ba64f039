import crypto from "node:crypto";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createWidget, setKeyMarkup, updateWidget } from "@/lib/channels/channels";
import { createDb, type Db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { createApiKey } from "@/lib/keys/api-keys";
import { getBalances } from "@/lib/ledger/ledger";
import { getOrCreateReseller, setMarkup } from "@/lib/resellers/resellers";
import { addressFor, newIp, sleep } from "../support/api";
import { type RunningApp, startApp } from "../support/app";
import { type ConsoleClient, consoleClient } from "../support/console";
import { recordSecret } from "../support/secrets";
import { migratedDatabase, type TestDatabase } from "../support/server";

// Issue 52, point 5, over HTTP: the console's resellers. The list (keyset pages, search by id
// or wallet, each row's figures from the rollups and balances from the ledger), one reseller's
// detail (keys without secrets, widgets, recent orders, audit rows), and the actions: suspend,
// restore, markup cap, notes; each in the audit log with before, after and reason, idempotent,
// 404 for an unknown reseller, 400 for a bad body, never a 500; a viewer reads and changes nothing.

const admin = privateKeyToAccount(`0x${"b1".repeat(32)}`);
const viewer = privateKeyToAccount(`0x${"b2".repeat(32)}`);

let database: TestDatabase;
let server: RunningApp;
let db: Db;
let op: ConsoleClient;

async function v1(path: string, opts: { key?: string; body?: unknown; method?: string } = {}) {
  const headers: Record<string, string> = { "x-forwarded-for": newIp() };
  if (opts.key) headers["x-api-key"] = opts.key;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${server.baseUrl}/api/v1${path}`, {
    method: opts.method ?? (opts.body !== undefined ? "POST" : "GET"),
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function reseller() {
  const r = await getOrCreateReseller(db, { walletAddress: `0x${crypto.randomBytes(20).toString("hex")}` });
  const { key, apiKey } = await createApiKey(db, { resellerId: r.id, name: "shop" });
  recordSecret(key);
  return { r, key, apiKey };
}

const code = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e.code;
    throw e;
  }
  return "OK";
};

let a: Awaited<ReturnType<typeof reseller>>;
let orderId: string;

beforeAll(async () => {
  database = await migratedDatabase(inject("dbKind"));
  server = await startApp({ databaseUrl: database.url, env: { OPERATOR_ADMIN_WALLET: admin.address } });
  db = createDb(database.url);
  op = await consoleClient(server.baseUrl, admin);
  a = await reseller();
  await setMarkup(db, { resellerId: a.r.id, markupBps: 100 });
  await reseller();
  await reseller();
  // A real order of A's, to its end: the rollups and the ledger hold its figures.
  const made = await v1("/exchange", { key: a.key, body: { from: "btc", to: "eth", amount: "0.05", address: addressFor("eth") } });
  expect(made.status).toBe(201);
  orderId = made.body.id;
  expect((await v1(`/sandbox/exchange/${orderId}/deposit`, { key: a.key, method: "POST" })).status).toBe(200);
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; await sleep(50))
    if ((await db.order.findUniqueOrThrow({ where: { id: orderId } })).status === "finished") break;
});

afterAll(async () => {
  await db?.$disconnect();
  await server?.stop();
  await database?.drop();
});

describe("the console's resellers", () => {
  it("lists every reseller once over keyset pages, with its figures from the rollups and its balances", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const page: { status: number; body: any } = await op.call(`/resellers?limit=1${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.status).toBe(200);
      expect(page.body.resellers.length).toBeLessThanOrEqual(1);
      seen.push(...page.body.resellers.map((r: { id: string }) => r.id));
      cursor = page.body.next;
      if (!cursor) break;
    }
    const all = (await db.reseller.findMany({ select: { id: true } })).map((r) => r.id).sort();
    expect(seen).toEqual(all);

    const o = await db.order.findUniqueOrThrow({ where: { id: orderId } });
    expect(o.status).toBe("finished");
    const byWallet = await op.call(`/resellers?q=${a.r.walletAddress.slice(0, 12).toUpperCase().replace("0X", "0x")}`);
    const row = byWallet.body.resellers.find((r: { id: string }) => r.id === a.r.id);
    expect(row).toMatchObject({
      id: a.r.id,
      wallet: a.r.walletAddress,
      markupBps: 100,
      markupCapBps: null,
      suspendedAt: null,
      revokedAt: null,
      figures: {
        orders: 1,
        finished: 1,
        byCurrency: [
          { currency: "btc", volume: "0.05", profit: "0" },
          { currency: "eth", volume: "0", profit: o.profit },
        ],
      },
    });
    expect(row.balances).toEqual(await getBalances(db, a.r.id));
    expect(row.balances.length).toBeGreaterThan(0);
    const byId = await op.call(`/resellers?q=${a.r.id}`);
    expect(byId.body.resellers.map((r: { id: string }) => r.id)).toEqual([a.r.id]);
    for (const q of ["nosuchreseller", "NoSuchReseller1", "0xzz", "%00"])
      expect((await op.call(`/resellers?q=${q}`)).body, q).toEqual({ resellers: [], next: null });
    for (const bad of ["limit=0", "limit=101", "limit=x", "cursor=a%20b", "cursor=%00", `q=${"x".repeat(101)}`]) {
      const r = await op.call(`/resellers?${bad}`);
      expect([r.status, r.body.error?.code], bad).toEqual([400, "INVALID_REQUEST"]);
    }
  });

  it("shows one reseller: keys without their secret, widgets, recent orders; an unknown one is a 404", async () => {
    const w = await createWidget(db, { resellerId: a.r.id, input: { name: "Blog" } });
    const d = await op.call(`/resellers/${a.r.id}`);
    expect(d.status).toBe(200);
    const r = d.body.reseller;
    expect(r.keys).toEqual([
      {
        id: a.apiKey.id,
        name: "shop",
        prefix: a.apiKey.prefix,
        createdAt: a.apiKey.createdAt.toISOString(),
        lastUsedAt: expect.any(String),
        revokedAt: null,
        markupBps: null,
      },
    ]);
    expect(JSON.stringify(d.body)).not.toContain(a.key);
    const hash = (await db.apiKey.findUniqueOrThrow({ where: { id: a.apiKey.id } })).hash;
    expect(JSON.stringify(d.body)).not.toContain(hash);
    expect(r.widgets.map((x: { id: string }) => x.id)).toEqual([w.id]);
    expect(r.recentOrders).toMatchObject([{ id: orderId, status: "finished", fromCurrency: "btc", toCurrency: "eth", fromAmount: "0.05" }]);
    expect(r.audit).toEqual([]);
    for (const id of ["nosuchreseller", "%00", "a.b"]) {
      const x = await op.call(`/resellers/${id}`);
      expect([x.status, x.body.error?.code], id).toEqual([404, "NOT_FOUND"]);
    }
  });

  it("suspends and restores, each once, in the audit log; the key answers 403 RESELLER_SUSPENDED meanwhile", async () => {
    expect((await v1("/currencies", { key: a.key })).status).toBe(200);
    const s = await op.call(`/resellers/${a.r.id}/suspend`, { body: { reason: "chargebacks" } });
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ changed: true, reseller: { id: a.r.id, suspendedAt: expect.any(String) } });
    const again = await op.call(`/resellers/${a.r.id}/suspend`, { body: { reason: "twice" } });
    expect(again.body).toMatchObject({ changed: false, reseller: { suspendedAt: s.body.reseller.suspendedAt } });
    // The console's app made the change: its own key cache dropped the key at once.
    const refused = await v1("/currencies", { key: a.key });
    expect([refused.status, refused.body.error.code]).toEqual([403, "RESELLER_SUSPENDED"]);
    expect((await op.call(`/resellers?q=${a.r.id}`)).body.resellers[0].suspendedAt).toBe(s.body.reseller.suspendedAt);

    const r = await op.call(`/resellers/${a.r.id}/restore`, { body: { reason: "cleared" } });
    expect(r.body).toMatchObject({ changed: true, reseller: { suspendedAt: null } });
    expect((await op.call(`/resellers/${a.r.id}/restore`, { body: { reason: "twice" } })).body.changed).toBe(false);
    expect((await v1("/currencies", { key: a.key })).status).toBe(200);

    const rows = await db.auditEvent.findMany({ where: { targetType: "reseller", targetId: a.r.id }, orderBy: { id: "asc" } });
    expect(rows.map((e) => [e.action, e.actor, e.role, e.reason])).toEqual([
      ["reseller.suspend", admin.address.toLowerCase(), "admin", "chargebacks"],
      ["reseller.restore", admin.address.toLowerCase(), "admin", "cleared"],
    ]);
    expect(JSON.parse(rows[0].before!)).toEqual({ suspendedAt: null });
    expect(JSON.parse(rows[0].after!)).toEqual({ suspendedAt: s.body.reseller.suspendedAt });
    expect(JSON.parse(rows[1].after!)).toEqual({ suspendedAt: null });
  });

  it("caps the markup: lowers what is above the cap (reseller, keys, widgets), refuses more with INVALID_MARKUP, lifts with null", async () => {
    const b = await reseller();
    await setMarkup(db, { resellerId: b.r.id, markupBps: 150 });
    await setKeyMarkup(db, { resellerId: b.r.id, keyId: b.apiKey.id, markupBps: 200 });
    const w = await createWidget(db, { resellerId: b.r.id, input: { name: "Blog", markupBps: 180 } });
    const low = await createWidget(db, { resellerId: b.r.id, input: { name: "Low", markupBps: 50 } });

    const c = await op.call(`/resellers/${b.r.id}/markup-cap`, { body: { capBps: 100, reason: "complaints" } });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    expect(c.body).toMatchObject({
      changed: true,
      lowered: { reseller: true, keys: 1, widgets: 1 },
      reseller: { markupBps: 100, markupCapBps: 100 },
    });
    expect((await db.apiKey.findUniqueOrThrow({ where: { id: b.apiKey.id } })).markupBps).toBe(100);
    expect((await db.widget.findUniqueOrThrow({ where: { id: w.id } })).markupBps).toBe(100);
    expect((await db.widget.findUniqueOrThrow({ where: { id: low.id } })).markupBps).toBe(50);
    // The key's estimate carries the lowered markup at once (this app made the change).
    const est = await v1("/estimate?from=btc&to=eth&amount=0.05", { key: b.key });
    expect(est.status).toBe(200);
    expect((await op.call(`/resellers/${b.r.id}/markup-cap`, { body: { capBps: 100, reason: "again" } })).body.changed).toBe(false);

    // Above the cap: refused, whoever sets it; at or below: taken.
    expect(await code(setMarkup(db, { resellerId: b.r.id, markupBps: 101 }))).toBe("INVALID_MARKUP");
    expect(await code(setKeyMarkup(db, { resellerId: b.r.id, keyId: b.apiKey.id, markupBps: 120 }))).toBe("INVALID_MARKUP");
    expect(await code(updateWidget(db, { resellerId: b.r.id, widgetId: w.id, input: { name: "Blog", markupBps: 120 } }))).toBe(
      "INVALID_MARKUP",
    );
    expect(await code(createWidget(db, { resellerId: b.r.id, input: { name: "New", markupBps: 101 } }))).toBe("INVALID_MARKUP");
    expect(await code(setMarkup(db, { resellerId: b.r.id, markupBps: 100 }))).toBe("OK");
    expect(await code(setKeyMarkup(db, { resellerId: b.r.id, keyId: b.apiKey.id, markupBps: null }))).toBe("OK");
    expect((await db.reseller.findUniqueOrThrow({ where: { id: b.r.id } })).markupBps).toBe(100);

    const lifted = await op.call(`/resellers/${b.r.id}/markup-cap`, { body: { capBps: null, reason: "resolved" } });
    expect(lifted.body).toMatchObject({ changed: true, reseller: { markupCapBps: null, markupBps: 100 } });
    expect(await code(setMarkup(db, { resellerId: b.r.id, markupBps: 140 }))).toBe("OK");

    const rows = await db.auditEvent.findMany({ where: { targetId: b.r.id, action: "reseller.markup_cap" }, orderBy: { id: "asc" } });
    expect(rows.map((e) => [JSON.parse(e.before!), JSON.parse(e.after!), e.reason])).toEqual([
      [{ markupCapBps: null, markupBps: 150 }, { markupCapBps: 100, markupBps: 100, keysLowered: 1, widgetsLowered: 1 }, "complaints"],
      [{ markupCapBps: 100, markupBps: 100 }, { markupCapBps: null, markupBps: 100, keysLowered: 0, widgetsLowered: 0 }, "resolved"],
    ]);
  });

  it("keeps notes in the audit log, once per text, shown on the reseller's detail with every action, newest first", async () => {
    const n = await op.call(`/resellers/${a.r.id}/notes`, { body: { text: "  called them  " } });
    expect(n.body).toMatchObject({ changed: true, note: { text: "called them", actor: admin.address.toLowerCase() } });
    expect((await op.call(`/resellers/${a.r.id}/notes`, { body: { text: "called them" } })).body).toMatchObject({
      changed: false,
      note: { id: n.body.note.id },
    });
    await op.call(`/resellers/${a.r.id}/notes`, { body: { text: "they answered" } });
    const d = (await op.call(`/resellers/${a.r.id}`)).body.reseller;
    expect(d.audit.map((e: { action: string }) => e.action)).toEqual([
      "reseller.note",
      "reseller.note",
      "reseller.restore",
      "reseller.suspend",
    ]);
    expect(d.audit[0]).toMatchObject({ after: { text: "they answered" }, targetType: "reseller", targetId: a.r.id });
    const log = await op.call(`/audit?targetType=reseller&targetId=${a.r.id}`);
    expect(log.body.events.map((e: { id: number }) => e.id)).toEqual(d.audit.map((e: { id: number }) => e.id));
  });

  it("answers a bad body 400 and an unknown reseller 404, never a 500, and writes nothing", async () => {
    const before = await db.auditEvent.count();
    const bodies: Record<string, unknown[]> = {
      // (A JSON number is read as its text, as the console reads every number: {"reason": 5} is the reason "5".)
      suspend: [{}, { reason: "" }, { reason: "   " }, { reason: {} }, { reason: "x".repeat(501) }, "x", [], null, 7],
      restore: [{}, { reason: [] }],
      "markup-cap": [
        { reason: "x" },
        { capBps: 100 },
        { capBps: -1, reason: "x" },
        { capBps: 1.5, reason: "x" },
        { capBps: "abc", reason: "x" },
        { capBps: 1e9, reason: "x" },
        { capBps: 1_000_000, reason: "x" },
        { capBps: {}, reason: "x" },
        { capBps: true, reason: "x" },
      ],
      notes: [{}, { text: "" }, { text: " " }, { text: "x".repeat(2001) }, { text: {} }],
    };
    for (const [action, list] of Object.entries(bodies))
      for (const body of list) {
        const r = await op.call(`/resellers/${a.r.id}/${action}`, { body });
        expect([r.status, r.body.error?.code], `${action} ${JSON.stringify(body)}`).toEqual([
          400,
          expect.stringMatching(/^(INVALID_REQUEST|MALFORMED_JSON)$/),
        ]);
      }
    const raw = await fetch(`${server.baseUrl}/api/console/resellers/${a.r.id}/suspend`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        cookie: op.cookie,
        origin: server.baseUrl.replace("127.0.0.1", "localhost"),
        "x-forwarded-for": newIp(),
      },
      body: '{"reason": "x"',
    });
    expect(raw.status).toBe(400);
    const valid: Record<string, unknown> = {
      suspend: { reason: "x" },
      restore: { reason: "x" },
      "markup-cap": { capBps: 10, reason: "x" },
      notes: { text: "x" },
    };
    for (const [action, body] of Object.entries(valid))
      for (const id of ["nosuchreseller", "NoSuchReseller1", "%00", "a%20b"]) {
        const r = await op.call(`/resellers/${id}/${action}`, { body });
        expect([r.status, r.body.error?.code], `${id} ${action}`).toEqual([404, "NOT_FOUND"]);
      }
    expect(await db.auditEvent.count()).toBe(before);
    expect((await db.reseller.findUniqueOrThrow({ where: { id: a.r.id } })).suspendedAt).toBeNull();
  });

  it("lets a viewer read but not act", async () => {
    expect((await op.call("/operators", { body: { wallet: viewer.address, role: "viewer" } })).status).toBe(201);
    const v = await consoleClient(server.baseUrl, viewer);
    expect((await v.call("/resellers")).status).toBe(200);
    expect((await v.call(`/resellers/${a.r.id}`)).status).toBe(200);
    for (const [action, body, permission] of [
      ["suspend", { reason: "x" }, "resellers.suspend"],
      ["restore", { reason: "x" }, "resellers.suspend"],
      ["markup-cap", { capBps: 1, reason: "x" }, "resellers.markup_cap"],
      ["notes", { text: "x" }, "resellers.note"],
    ] as const) {
      const r = await v.call(`/resellers/${a.r.id}/${action}`, { body });
      expect([r.status, r.body.error?.code, r.body.error?.permission], action).toEqual([403, "FORBIDDEN", permission]);
    }
    expect((await db.reseller.findUniqueOrThrow({ where: { id: a.r.id } })).suspendedAt).toBeNull();
  });
});
