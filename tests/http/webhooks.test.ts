import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { createApiKey } from "@/lib/keys/api-keys";
import { getOrCreateReseller } from "@/lib/resellers/resellers";
import { createEndpoint, listDeliveries, rotateEndpointSecret, sendTestEvent } from "@/lib/webhooks/endpoints";
import { addressFor, api, sleep, testDb } from "../support/api";
import { type RunningApp, startApp } from "../support/app";
import { migratedDatabase, type TestDatabase } from "../support/server";

// Webhooks end to end: a receiver in this process verifies every delivery with the
// standardwebhooks package's own verifier. Its own server: private addresses allowed
// (the receiver is on 127.0.0.1) and retries a fraction of a second apart.

interface Received {
  id: string;
  body: string;
  headers: Record<string, string>;
  answered: number;
}

class Receiver {
  server!: http.Server;
  url = "";
  received: Received[] = [];
  /** What to answer a delivery; 200 unless told otherwise. */
  answer: (r: Omit<Received, "answered">, seenBefore: number) => number = () => 200;

  async start() {
    this.server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
        const r = { id: headers["webhook-id"], body, headers };
        const status = this.answer(r, this.received.filter((x) => x.id === r.id).length);
        this.received.push({ ...r, answered: status });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  stop = () => new Promise<void>((resolve) => this.server.close(() => resolve()));

  /** The events about one order that were answered 2xx, in arrival order. */
  ok = (orderId: string) => this.received.filter((r) => r.answered < 300).filter((r) => JSON.parse(r.body).data?.orderId === orderId);

  async until(pred: () => boolean, what: string, ms = 20_000) {
    const end = Date.now() + ms;
    while (!pred()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}; received ${this.received.length}`);
      await sleep(50);
    }
  }
}

const HAPPY = ["waiting", "confirming", "exchanging", "sending", "finished"];

describe("webhooks (Standard Webhooks, outbox, retries)", () => {
  let database: TestDatabase;
  let server: RunningApp;
  let db: Db;
  const receiver = new Receiver();

  beforeAll(async () => {
    await receiver.start();
    database = await migratedDatabase(inject("dbKind"));
    server = await startApp({
      databaseUrl: database.url,
      env: { WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_RETRY_SCHEDULE: "0.3,0.3,0.3,0.3", WEBHOOK_DISABLE_AFTER_FAILURES: "6" },
    });
    db = createDb(database.url);
  });

  afterAll(async () => {
    await server?.stop();
    await db?.$disconnect();
    await database?.drop();
    await receiver.stop();
  });

  const call = async (path: string, key: string, body?: object) => {
    const r = await fetch(`${server.baseUrl}/api/v1${path}`, {
      method: body ? "POST" : "GET",
      headers: { "content-type": "application/json", "x-api-key": key },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: r.status, body: await r.json() };
  };

  async function reseller() {
    const r = await getOrCreateReseller(db, { walletAddress: `0x${crypto.randomUUID().replace(/-/g, "").padEnd(40, "0")}` });
    const { key } = await createApiKey(db, { resellerId: r.id, name: "hooks" });
    return { resellerId: r.id, key };
  }

  async function finishedOrder(key: string) {
    const o = await call("/exchange", key, { from: "ltc", to: "eth", amount: "2", address: addressFor("eth") });
    expect(o.status).toBe(201);
    expect((await call(`/sandbox/exchange/${o.body.id}/deposit`, key, {})).status).toBe(200);
    return o.body.id as string;
  }

  it("every delivery verifies; every state of an order arrives once, in order, with the full status body", async () => {
    const { resellerId, key } = await reseller();
    const { secret } = await createEndpoint(db, { resellerId, url: receiver.url, events: ["*"], allowPrivate: true });
    const wh = new Webhook(secret);
    const id = await finishedOrder(key);
    await receiver.until(() => receiver.ok(id).some((r) => JSON.parse(r.body).data.status === "finished"), "finished");
    const got = receiver.ok(id);
    for (const r of got) {
      // The library's verifier: signature, id, and a timestamp within its tolerance.
      expect(wh.verify(r.body, r.headers)).toEqual(JSON.parse(r.body));
      expect(r.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
      expect(r.headers["webhook-id"]).toMatch(/^msg_/);
    }
    const events = got.map((r) => JSON.parse(r.body));
    expect(events.map((e) => e.data.status)).toEqual(HAPPY);
    expect(events.map((e) => e.type)).toEqual(["order.created", ...Array(4).fill("order.status_changed")]);
    expect(new Set(got.map((r) => r.id)).size).toBe(HAPPY.length);
    // The status body is the one GET /exchange/{id} answers; previousStatus names the state before.
    const last = events[events.length - 1];
    expect(last.data.previousStatus).toBe("sending");
    expect(last.data.order).toEqual((await call(`/exchange/${id}`, key)).body);
    expect(typeof last.timestamp).toBe("string");

    // A delivery whose body was altered fails verification.
    const r = got[1];
    const altered = r.body.replace('"confirming"', '"finished"');
    expect(altered).not.toBe(r.body);
    expect(() => wh.verify(altered, r.headers)).toThrow();
    // So does one signed with another secret.
    expect(() => new Webhook(`whsec_${Buffer.alloc(24, 7).toString("base64")}`).verify(r.body, r.headers)).toThrow();
  });

  it("after a 500, the delivery is retried, and the order's later events wait for it", async () => {
    const { resellerId, key } = await reseller();
    const { endpoint, secret } = await createEndpoint(db, {
      resellerId,
      url: receiver.url,
      events: ["order.status_changed"],
      allowPrivate: true,
    });
    let failFor: string | null = null;
    receiver.answer = (r, seen) => {
      const ev = JSON.parse(r.body);
      // The confirming event is refused twice.
      if (ev.data?.status === "confirming" && seen < 2) {
        failFor = r.id;
        return 500;
      }
      return 200;
    };
    try {
      const id = await finishedOrder(key);
      await receiver.until(() => receiver.ok(id).some((x) => JSON.parse(x.body).data.status === "finished"), "finished");
      const all = receiver.received.filter((x) => JSON.parse(x.body).data?.orderId === id);
      expect(all.filter((x) => x.id === failFor).map((x) => x.answered)).toEqual([500, 500, 200]);
      // Retries reuse the webhook-id, with a new timestamp and signature each time, all valid.
      const wh = new Webhook(secret);
      for (const x of all) expect(() => wh.verify(x.body, x.headers)).not.toThrow();
      // Nothing after confirming arrived before confirming was accepted; each state once.
      expect(receiver.ok(id).map((x) => JSON.parse(x.body).data.status)).toEqual(HAPPY.slice(1));
      // The delivery log has the attempts, status codes and latencies.
      const log = await listDeliveries(db, { resellerId, endpointId: endpoint.id });
      const confirming = log.find((d) => d.messageId === failFor)!;
      expect(confirming).toMatchObject({ status: "succeeded", attempts: 3, lastStatusCode: 200, lastError: null, nextAttemptAt: null });
      expect(confirming.log.map((a) => a.statusCode)).toEqual([500, 500, 200]);
      expect(confirming.log.every((a) => a.latencyMs >= 0)).toBe(true);
    } finally {
      receiver.answer = () => 200;
    }
  });

  it("an endpoint that keeps failing is disabled with the reason; the test event; a rotated secret signs twice", async () => {
    const { resellerId, key } = await reseller();
    // Every delivery to this endpoint fails: its server answers 500 to everything.
    const server500 = http.createServer((_req, res) => res.writeHead(500).end());
    await new Promise<void>((resolve) => server500.listen(0, "127.0.0.1", resolve));
    const badUrl = `http://127.0.0.1:${(server500.address() as AddressInfo).port}/`;
    const { endpoint } = await createEndpoint(db, { resellerId, url: badUrl, events: ["*"], allowPrivate: true });
    try {
      await finishedOrder(key);
      let row = await db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
      for (let i = 0; i < 200 && row.enabled; i++) {
        await sleep(100);
        row = await db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
      }
      expect(row.enabled).toBe(false);
      expect(row.disabledReason).toMatch(/^6 failed attempts in a row; the last one: HTTP 500$/);
      const log = await listDeliveries(db, { resellerId, endpointId: endpoint.id });
      // The first delivery used its whole schedule (1 + 4 retries) and failed for good.
      expect(log[log.length - 1]).toMatchObject({ type: "order.created", status: "failed", attempts: 5, lastStatusCode: 500 });

      // A healthy endpoint: the test event, then a rotation (both secrets sign during the grace period).
      const good = await createEndpoint(db, { resellerId, url: receiver.url, events: ["order.created"], allowPrivate: true });
      const msg = await sendTestEvent(db, { resellerId, endpointId: good.endpoint.id });
      await receiver.until(() => receiver.received.some((r) => r.id === msg && r.answered === 200), "the test event");
      const t = receiver.received.find((r) => r.id === msg)!;
      expect(JSON.parse(t.body)).toMatchObject({ type: "webhook.test", data: { endpointId: good.endpoint.id } });
      expect(new Webhook(good.secret).verify(t.body, t.headers)).toBeTruthy();
      const rotated = await rotateEndpointSecret(db, { resellerId, endpointId: good.endpoint.id });
      const msg2 = await sendTestEvent(db, { resellerId, endpointId: good.endpoint.id });
      await receiver.until(() => receiver.received.some((r) => r.id === msg2 && r.answered === 200), "the second test event");
      const t2 = receiver.received.find((r) => r.id === msg2)!;
      expect(t2.headers["webhook-signature"].split(" ")).toHaveLength(2);
      expect(new Webhook(rotated.secret).verify(t2.body, t2.headers)).toBeTruthy();
      expect(new Webhook(good.secret).verify(t2.body, t2.headers)).toBeTruthy();
    } finally {
      server500.close();
    }
  });
});

describe("webhooks without WEBHOOK_ALLOW_PRIVATE (the shared test server)", () => {
  it("a delivery to http://127.0.0.1 is refused and never sent; adding such an endpoint is refused too", async () => {
    const receiver = new Receiver();
    await receiver.start();
    try {
      const r = await getOrCreateReseller(testDb(), { walletAddress: `0x${crypto.randomUUID().replace(/-/g, "").padEnd(40, "1")}` });
      const { key } = await createApiKey(testDb(), { resellerId: r.id, name: "ssrf" });
      await expect(
        createEndpoint(testDb(), { resellerId: r.id, url: receiver.url, events: ["*"], allowPrivate: false }),
      ).rejects.toMatchObject({
        code: "INVALID_REQUEST",
      });
      // Written around the check (as if the address had changed since): the sender refuses it.
      const { endpoint } = await createEndpoint(testDb(), { resellerId: r.id, url: receiver.url, events: ["*"], allowPrivate: true });
      const o = await api("/exchange", { key, body: { from: "ltc", to: "eth", amount: "2", address: addressFor("eth") } });
      expect(o.status).toBe(201);
      let log = await listDeliveries(testDb(), { resellerId: r.id, endpointId: endpoint.id });
      for (let i = 0; i < 100 && !log[0]?.attempts; i++) {
        await sleep(50);
        log = await listDeliveries(testDb(), { resellerId: r.id, endpointId: endpoint.id });
      }
      expect(log[0]).toMatchObject({ type: "order.created", status: "pending", attempts: 1, lastStatusCode: null });
      expect(log[0].lastError).toMatch(/^refused: 127\.0\.0\.1 is not a public address \(loopback\)/);
      expect(receiver.received).toHaveLength(0);
      // A name that resolves to loopback is refused at connection time as well.
      await testDb().webhookEndpoint.update({ where: { id: endpoint.id }, data: { url: receiver.url.replace("127.0.0.1", "localhost") } });
      const o2 = await api("/exchange", { key, body: { from: "ltc", to: "eth", amount: "2", address: addressFor("eth") } });
      expect(o2.status).toBe(201);
      await sleep(1000);
      expect(receiver.received).toHaveLength(0);
    } finally {
      await receiver.stop();
    }
  });
});
