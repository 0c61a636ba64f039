import crypto from "node:crypto";
import { EventSource } from "eventsource";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { openEventStreams } from "@/lib/http/v1/events";
import { createApiKey } from "@/lib/keys/api-keys";
import { getOrCreateReseller } from "@/lib/resellers/resellers";
import { addressFor, isErrorShape, newIp, sleep } from "../support/api";
import { type RunningApp, startApp } from "../support/app";
import { recordSecret } from "../support/secrets";
import { migratedDatabase, type TestDatabase } from "../support/server";

// Live status (issue 53): GET /exchange/{id}/events as Server-Sent Events, on in-process app
// instances sharing one database (PostgreSQL in the http-postgres project, SQLite in
// http-sqlite). No instance runs a worker of its own: the test runs each worker pass on one
// instance or the other (app.runWorkerOnce), so every change is written by an instance other
// than, or the same as, the one holding the stream, and a stream sees it only through the
// database. The order's states are compared with its OrderEvent rows, which hold its history.

const HANG_GUARD_MS = 120_000; // not a speed bound: how long a test waits before it calls something stuck
const STATES = ["waiting", "confirming", "exchanging", "sending", "finished"];

/** Settings of every instance here: no worker of its own, the event reader every 50 ms. */
const INSTANCE = { WORKER_IN_PROCESS: "false", EVENTS_POLL_MS: "50" };

interface StatusEvent {
  /** The SSE id: the OrderEvent row's id. */
  eventId: number;
  id: string;
  status: string;
  at: string;
}

async function until<T>(what: string, read: () => T | Promise<T>): Promise<NonNullable<T>> {
  const deadline = Date.now() + HANG_GUARD_MS;
  for (;;) {
    const v = await read();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(20);
  }
}

/** `p`, or a failure naming `what` when it has not settled within the hang guard (a drain waiting for a stream for ever). */
function guarded<T>(what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not return`)), HANG_GUARD_MS);
  });
  return Promise.race([p, hang]).finally(() => clearTimeout(timer));
}

/** A real EventSource (the eventsource package) whose requests carry the key, the client IP and any headers; `base()` picks the instance of each (re)connection. */
function listen(base: () => string, path: string, opts: { key?: string; ip: string; headers?: Record<string, string> }) {
  const statuses: StatusEvent[] = [];
  const ends: { id: string; status: string }[] = [];
  const connections: { url: string; lastEventId: string | null }[] = [];
  const es = new EventSource(`http://events.invalid${path}`, {
    fetch: (url, init) => {
      const target = new URL(String(url));
      const real = `${base()}${target.pathname}${target.search}`;
      const headers: Record<string, string> = { ...init.headers, "x-forwarded-for": opts.ip, ...(opts.headers ?? {}) };
      if (opts.key) headers["x-api-key"] = opts.key;
      connections.push({ url: real, lastEventId: headers["Last-Event-ID"] ?? headers["last-event-id"] ?? null });
      return fetch(real, { ...init, headers });
    },
  });
  es.addEventListener("status", (e) => {
    statuses.push({ eventId: Number(e.lastEventId), ...JSON.parse(e.data) });
  });
  es.addEventListener("end", (e) => {
    ends.push(JSON.parse(e.data));
    es.close();
  });
  return { es, statuses, ends, connections };
}

/** A stream read with fetch: its head, and its body's text as it arrives. */
async function openRaw(url: string, headers: Record<string, string>) {
  const abort = new AbortController();
  const res = await fetch(url, { headers, signal: abort.signal });
  const state = { text: "", done: false };
  const reading = (async () => {
    if (!res.body) return;
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        state.text += decoder.decode(value, { stream: true });
      }
    } catch {
      // aborted by the test
    }
    state.done = true;
  })();
  return {
    res,
    state,
    reading,
    close: async () => {
      abort.abort();
      await reading;
    },
  };
}

describe("GET /exchange/{id}/events (Server-Sent Events)", () => {
  const kind = inject("dbKind");
  let db: TestDatabase;
  let a: RunningApp;
  let b: RunningApp;
  let key: string;
  let minutes = 0;

  /** One worker pass on `app`, a minute after the last (every step of the simulated engine is due by then). */
  const pass = (app: RunningApp) => app.app.runWorkerOnce(new Date(Date.now() + ++minutes * 60_000));

  async function newKey(app: RunningApp): Promise<string> {
    const made = await app.app.run(async () => {
      const reseller = await getOrCreateReseller(app.app.db(), { walletAddress: `0x${crypto.randomBytes(20).toString("hex")}` });
      return createApiKey(app.app.db(), { resellerId: reseller.id, name: "events" });
    });
    recordSecret(made.key);
    return made.key;
  }

  async function post(app: RunningApp, path: string, body: unknown, k?: string) {
    const r = await fetch(`${app.baseUrl}/api/v1${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": newIp(), ...(k ? { "x-api-key": k } : {}) },
      body: JSON.stringify(body),
    });
    return { status: r.status, body: await r.json() };
  }

  async function newOrder(app: RunningApp, k?: string): Promise<string> {
    const r = await post(app, "/exchange", { from: "btc", to: "eth", amount: "0.01", address: addressFor("eth") }, k);
    expect(r.status).toBe(201);
    return r.body.id;
  }

  async function deposit(app: RunningApp, id: string, k?: string) {
    const r = await post(app, `/sandbox/exchange/${id}/deposit`, {}, k);
    expect(r.status).toBe(200);
  }

  /** The order's OrderEvent rows: its history, as stored. */
  const rows = (id: string) =>
    a.app.db().orderEvent.findMany({ where: { orderId: id }, orderBy: { id: "asc" }, select: { id: true, status: true } });

  beforeAll(async () => {
    db = await migratedDatabase(kind);
    a = await startApp({ databaseUrl: db.url, env: INSTANCE, name: "events-a" });
    b = await startApp({ databaseUrl: db.url, env: INSTANCE, name: "events-b" });
    key = await newKey(a);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.drop();
  });

  it("every state reaches a stream on the other instance; a reconnection with Last-Event-ID resumes with no gap and no duplicate, and ends at finished", async () => {
    const id = await newOrder(a, key);
    const ip = newIp();

    // First connection, on B: the current state at once, then what instance A writes.
    const first = listen(() => b.baseUrl, `/api/v1/exchange/${id}/events`, { key, ip });
    const lastOf = (l: ReturnType<typeof listen>) => l.statuses[l.statuses.length - 1]?.status;
    await until("waiting", () => lastOf(first) === "waiting");
    await deposit(a, id, key);
    await until("confirming", () => lastOf(first) === "confirming");
    await pass(a);
    await until("exchanging", () => lastOf(first) === "exchanging");
    expect(first.statuses.map((e) => e.status)).toEqual(STATES.slice(0, 3));
    // Disconnected midway; the order moves on meanwhile.
    first.es.close();
    await pass(a);
    await until("sending stored", async () => (await rows(id)).length === 4);

    // Second connection, on B again, from the last event received: the state missed, then live ones, then the end.
    const last = first.statuses[first.statuses.length - 1].eventId;
    const second = listen(() => b.baseUrl, `/api/v1/exchange/${id}/events`, { key, ip, headers: { "Last-Event-ID": String(last) } });
    await until("sending", () => lastOf(second) === "sending");
    expect(second.statuses.map((e) => e.status)).toEqual(["sending"]);
    await pass(b);
    await until("the end", () => second.ends.length === 1);

    const stored = await rows(id);
    expect(stored.map((r) => r.status)).toEqual(STATES);
    const received = [...first.statuses, ...second.statuses];
    expect(received.map((e) => [e.eventId, e.status])).toEqual(stored.map((r) => [r.id, r.status]));
    expect(received.every((e) => e.id === id)).toBe(true);
    expect(second.ends).toEqual([{ id, status: "finished" }]);

    // The same states and times as the order's history.
    const order = await (await fetch(`${a.baseUrl}/api/v1/exchange/${id}`, { headers: { "x-api-key": key } })).json();
    expect(received.map((e) => ({ status: e.status, at: e.at }))).toEqual(order.history);

    // The query form, on A, after the order finished: every state after the first, then the end.
    const replay = listen(() => a.baseUrl, `/api/v1/exchange/${id}/events?lastEventId=${stored[0].id}`, { key, ip });
    await until("the replay's end", () => replay.ends.length === 1);
    expect(replay.statuses.map((e) => e.eventId)).toEqual(stored.slice(1).map((r) => r.id));
    // A finished order, no Last-Event-ID: its final state, then the end.
    const after = listen(() => b.baseUrl, `/api/v1/exchange/${id}/events`, { key, ip });
    await until("the final state's end", () => after.ends.length === 1);
    expect(after.statuses.map((e) => [e.eventId, e.status])).toEqual([[stored[4].id, "finished"]]);
  });

  it("an instance's shutdown ends its streams and the app stops; the EventSource reconnects to another instance with Last-Event-ID and misses nothing", async () => {
    const c = await startApp({ databaseUrl: db.url, env: INSTANCE, name: "events-c" });
    let stopped = false;
    let target = c;
    try {
      const id = await newOrder(a);
      // Keyless: a keyless order is visible by its id.
      const s = listen(() => target.baseUrl, `/api/v1/exchange/${id}/events`, { ip: newIp() });
      await until("waiting", () => s.statuses.length === 1);
      await deposit(a, id);
      await until("confirming", () => s.statuses.length === 2);

      // C drains: its stream ends, and stop() returns (the drain does not wait for the stream).
      target = a;
      await guarded("C's stop", c.stop());
      stopped = true;
      // The EventSource reconnects by itself (after the retry the server asked for), to A.
      await pass(a);
      await pass(a);
      await pass(a);
      await until("the end after the reconnection", () => s.ends.length === 1);
      expect(s.connections.length).toBe(2);
      expect(s.connections[0].url.startsWith(c.baseUrl)).toBe(true);
      expect(s.connections[1].url.startsWith(a.baseUrl)).toBe(true);
      expect(s.connections[1].lastEventId).toBe(String(s.statuses[1].eventId));
      const stored = await rows(id);
      expect(s.statuses.map((e) => [e.eventId, e.status])).toEqual(stored.map((r) => [r.id, r.status]));
      expect(stored.map((r) => r.status)).toEqual(STATES);
    } finally {
      if (!stopped) await c.stop();
    }
  });

  it("answers the stream's head, the retry line and the current state at once, and a heartbeat comment while nothing happens", async () => {
    const h = await startApp({ databaseUrl: db.url, env: { ...INSTANCE, EVENTS_HEARTBEAT_SECONDS: "1" }, name: "events-heartbeat" });
    try {
      const id = await newOrder(a, key);
      const s = await openRaw(`${h.baseUrl}/api/v1/exchange/${id}/events`, { "x-api-key": key, "x-forwarded-for": newIp() });
      expect(s.res.status).toBe(200);
      expect(s.res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
      expect(s.res.headers.get("cache-control")).toBe("no-store");
      expect(s.res.headers.get("x-accel-buffering")).toBe("no");
      expect(s.res.headers.get("x-request-id")).toBeTruthy();
      expect(s.res.headers.get("ratelimit")).toMatch(/^"minute";r=\d+;t=\d+$/);
      expect(s.res.headers.get("content-length")).toBeNull();
      const [row] = await rows(id);
      await until("the first event", () => /event: status\ndata: .*\n\n/.test(s.state.text));
      expect(s.state.text).toMatch(/^retry: \d+\n\n/);
      const first = s.state.text.slice(s.state.text.indexOf("id: ")).split("\n\n")[0];
      const data = JSON.parse(first.split("\n")[2].slice("data: ".length));
      expect(first.split("\n").slice(0, 2)).toEqual([`id: ${row.id}`, "event: status"]);
      expect(data).toEqual({ id, status: "waiting", at: expect.any(String) });
      await until("a heartbeat", () => s.state.text.includes("\n: ping\n\n"));
      await s.close();
      await until("the stream's release", () => h.app.run(() => openEventStreams()) === 0);
    } finally {
      await h.stop();
    }
  });

  it("a key revoked while its stream is open ends the stream at the next heartbeat; the reconnection gets 401, other keys' streams go on", async () => {
    const h = await startApp({ databaseUrl: db.url, env: { ...INSTANCE, EVENTS_HEARTBEAT_SECONDS: "1" }, name: "events-revoked" });
    try {
      const doomed = await newKey(a);
      const kept = await newKey(a);
      const [x, y] = [await newOrder(a, doomed), await newOrder(a, kept)];
      const sx = await openRaw(`${h.baseUrl}/api/v1/exchange/${x}/events`, { "x-api-key": doomed, "x-forwarded-for": newIp() });
      const sy = await openRaw(`${h.baseUrl}/api/v1/exchange/${y}/events`, { "x-api-key": kept, "x-forwarded-for": newIp() });
      await until("both first events", () => sx.state.text.includes("event: status") && sy.state.text.includes("event: status"));
      await h.app.run(async () => {
        const k = await h.app.db().apiKey.findFirstOrThrow({ where: { orders: { some: { id: x } } } });
        await h.app.db().apiKey.update({ where: { id: k.id }, data: { revokedAt: new Date() } });
      });
      await until("the revoked key's stream to end", () => sx.state.done);
      expect(sx.state.text).not.toContain("event: end");
      const pingsBefore = sy.state.text.split(": ping").length;
      await until("another heartbeat on the kept stream", () => sy.state.text.split(": ping").length > pingsBefore);
      expect(sy.state.done).toBe(false);
      const again = await fetch(`${h.baseUrl}/api/v1/exchange/${x}/events`, {
        headers: { "x-api-key": doomed, "x-forwarded-for": newIp() },
      });
      expect([again.status, ((await again.json()) as { error: { code: string } }).error.code]).toEqual([401, "INVALID_API_KEY"]);
      await sy.close();
      await until("every stream released", () => h.app.run(() => openEventStreams()) === 0);
    } finally {
      await h.stop();
    }
  });

  it("refuses past the bound of open streams per API key and per keyless client IP, with 429 before the stream opens", async () => {
    const l = await startApp({
      databaseUrl: db.url,
      env: { ...INSTANCE, EVENTS_MAX_PER_KEY: "1", EVENTS_MAX_PER_IP: "2" },
      name: "events-limits",
    });
    const open: Awaited<ReturnType<typeof openRaw>>[] = [];
    try {
      const id = await newOrder(a, key);
      const keyless = await newOrder(a);
      const url = (order: string) => `${l.baseUrl}/api/v1/exchange/${order}/events`;
      const refused = async (r: Response) => {
        expect(r.status).toBe(429);
        expect(r.headers.get("content-type")).toBe("application/json; charset=utf-8");
        const body = await r.json();
        expect(isErrorShape(body)).toBe(true);
        expect(body.error.code).toBe("RATE_LIMITED");
        expect(r.headers.get("retry-after")).toBe(String(body.error.retryAfter));
      };

      // One per key, from any IP.
      open.push(await openRaw(url(id), { "x-api-key": key, "x-forwarded-for": newIp() }));
      expect(open[0].res.status).toBe(200);
      await refused(await fetch(url(id), { headers: { "x-api-key": key, "x-forwarded-for": newIp() } }));
      // Another key is counted on its own.
      const other = await newKey(a);
      const otherOrder = await newOrder(a, other);
      open.push(await openRaw(url(otherOrder), { "x-api-key": other, "x-forwarded-for": newIp() }));
      expect(open[1].res.status).toBe(200);

      // Two per keyless IP; another IP is counted on its own.
      const ip = newIp();
      for (let i = 0; i < 2; i++) {
        open.push(await openRaw(url(keyless), { "x-forwarded-for": ip }));
        expect(open[open.length - 1].res.status).toBe(200);
      }
      await refused(await fetch(url(keyless), { headers: { "x-forwarded-for": ip } }));
      const elsewhere = await openRaw(url(keyless), { "x-forwarded-for": newIp() });
      expect(elsewhere.res.status).toBe(200);
      open.push(elsewhere);

      // A stream closed gives its place back.
      await open[0].close();
      const again = await until("the key's place back", async () => {
        const s = await openRaw(url(id), { "x-api-key": key, "x-forwarded-for": newIp() });
        if (s.res.status === 200) return s;
        await s.close();
        return null;
      });
      open.push(again);
    } finally {
      for (const s of open) await s.close();
      await l.stop();
    }
  });

  it.runIf(inject("dbKind") === "postgres")(
    "an event committed after one with a higher id still reaches its stream (PostgreSQL draws ids at the insert; rows appear at the commit)",
    async () => {
      // A fresh instance: its reader starts in this test, while a transaction is open.
      const d = await startApp({ databaseUrl: db.url, env: INSTANCE, name: "events-gaps" });
      const { default: pg } = await import("pg");
      const [t1, t3, auto] = [0, 1, 2].map(() => new pg.Client({ connectionString: db.url }));
      const streams: ReturnType<typeof listen>[] = [];
      try {
        for (const c of [t1, t3, auto]) await c.connect();
        const insert = async (c: InstanceType<typeof pg.Client>, order: string, status: string) =>
          Number(
            (await c.query(`INSERT INTO "OrderEvent" ("orderId", "status") VALUES ($1, $2) RETURNING "id"`, [order, status])).rows[0].id,
          );
        const [o1, o2, o3] = [await newOrder(a), await newOrder(a), await newOrder(a)];

        // Open when the reader starts: o1's event, behind o2's committed one.
        await t1.query("BEGIN");
        const n1 = await insert(t1, o1, "confirming");
        await insert(auto, o2, "confirming");
        const ip = newIp();
        for (const o of [o1, o2, o3]) streams.push(listen(() => d.baseUrl, `/api/v1/exchange/${o}/events`, { ip }));
        const [s1, s2, s3] = streams;
        await until("the current states", () => streams.every((x) => x.statuses.length === 1));
        expect([s1, s2, s3].map((x) => x.statuses[0].status)).toEqual(["waiting", "confirming", "waiting"]);

        // Open while the reader runs: o3's event, behind o2's next committed one, which the reader passes first.
        await t3.query("BEGIN");
        const n3 = await insert(t3, o3, "confirming");
        const n4 = await insert(auto, o2, "exchanging");
        await until("o2's exchanging", () => s2.statuses.length === 2);
        expect(s2.statuses[1].eventId).toBe(n4);
        expect(n1 < n4 && n3 < n4).toBe(true);

        await t1.query("COMMIT");
        await t3.query("COMMIT");
        await until("the late commits", () => s1.statuses.length === 2 && s3.statuses.length === 2);
        expect(s1.statuses.map((e) => e.eventId)).toEqual([s1.statuses[0].eventId, n1]);
        expect(s3.statuses.map((e) => e.eventId)).toEqual([s3.statuses[0].eventId, n3]);
        expect([s1.statuses[1].status, s3.statuses[1].status]).toEqual(["confirming", "confirming"]);
      } finally {
        for (const x of streams) x.es.close();
        for (const c of [t1, t3, auto]) await c.end().catch(() => undefined);
        await d.stop();
      }
    },
  );

  it("answers an unknown order, another reseller's order and a bad Last-Event-ID as errors before any stream", async () => {
    const id = await newOrder(a, key);
    const other = await newKey(a);
    const get = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${b.baseUrl}/api/v1${path}`, { headers: { "x-forwarded-for": newIp(), ...headers } });

    for (const [path, headers] of [
      [`/exchange/${"0".repeat(24)}/events`, {}],
      [`/exchange/${id}/events`, { "x-api-key": other }],
      [`/exchange/${id}/events`, {}],
      ["/exchange/not-an-id/events", {}],
    ] as const) {
      const r = await get(path, headers);
      const plain = await get(path.replace(/\/events$/, ""), headers);
      expect(r.status).toBe(404);
      expect(r.headers.get("content-type")).toBe("application/json; charset=utf-8");
      const body = await r.json();
      expect(body).toEqual(await plain.json());
      expect(body.error.code).toBe("ORDER_NOT_FOUND");
    }

    for (const [path, headers] of [
      [`/exchange/${id}/events`, { "last-event-id": "abc" }],
      [`/exchange/${id}/events`, { "last-event-id": "-1" }],
      [`/exchange/${id}/events?lastEventId=1.5`, {}],
      [`/exchange/${id}/events?lastEventId=${"9".repeat(16)}`, {}],
    ] as const) {
      const r = await get(path, { "x-api-key": key, ...headers });
      expect(r.status).toBe(400);
      const body = await r.json();
      expect(isErrorShape(body)).toBe(true);
      expect(body.error.code).toBe("INVALID_REQUEST");
    }
    // A browser's EventSource reconnecting from another site sends Last-Event-ID: its preflight allows it.
    const preflight = await fetch(`${b.baseUrl}/api/v1/exchange/${id}/events`, {
      method: "OPTIONS",
      headers: {
        origin: "https://shop.example",
        "access-control-request-method": "GET",
        "access-control-request-headers": "last-event-id",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-headers")).toContain("Last-Event-ID");
    // Nothing left open by the refusals.
    expect(b.app.run(() => openEventStreams())).toBe(0);
  });
});
