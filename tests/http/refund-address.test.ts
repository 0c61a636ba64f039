import { Ajv2020 } from "ajv/dist/2020.js";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { createApiKey } from "@/lib/keys/api-keys";
import { getOrCreateReseller } from "@/lib/resellers/resellers";
import { createEndpoint } from "@/lib/webhooks/endpoints";
import { addressFor, api, isErrorShape, makeReseller, newIp, pollUntil, sleep, testDb } from "../support/api";
import { type RunningApp, startApp } from "../support/app";
import { type Fakes, startFakes } from "../support/fake-providers";
import { assertLedgerConsistent } from "../support/ledger";
import { recordSecret } from "../support/secrets";
import { migratedDatabase, type TestDatabase } from "../support/server";
import { WebhookReceiver } from "../support/webhook-receiver";

// Issue 51, point 4: the way out of a hold. An order on SideShift (the fake) goes on hold
// without a refund address; its v1 body and hosted view ask for one (requiredAction), an
// order.action_required webhook goes out signed; the user gives an address (a wrong one
// first), through the hosted API with the status link's secret or through v1 with the key;
// SideShift receives it and refunds to it; the order ends failed with the refund's hash.
// Then the refusals: 409s, 404s, 401, and bodies no client can turn into a 500.

let fakes: Fakes;
let database: TestDatabase;
let server: RunningApp;
let db: Db;
let resellerId: string;
let key: string;
let otherKey: string;
let webhookSecret: string;
const receiver = new WebhookReceiver();

beforeAll(async () => {
  await receiver.start();
  fakes = await startFakes();
  // btc -> eth on SideShift only; ltc -> eth on ChangeNOW only (no set-refund-address there).
  fakes.setPair("btc", "eth", { sideshift: "20.6" }, { min: "0.001", max: "2" });
  // More shifts than SideShift's 5 a minute per IP: its limit is not what this file tests.
  fakes.sideshift.shiftsPerMinute = 1000;
  fakes.sideshift.quotesPerMinute = 1000;
  fakes.setPair("ltc", "eth", { changenow: "0.05" }, { min: "0.01", max: "100" });
  database = await migratedDatabase(inject("dbKind"));
  server = await startApp({ databaseUrl: database.url, env: { ...fakes.env(), WEBHOOK_ALLOW_PRIVATE: "true" } });
  db = createDb(database.url);
  const reseller = await getOrCreateReseller(db, { walletAddress: `0x${"5a".repeat(20)}` });
  resellerId = reseller.id;
  key = (await createApiKey(db, { resellerId, name: "refunds" })).key;
  recordSecret(key);
  const other = await getOrCreateReseller(db, { walletAddress: `0x${"5b".repeat(20)}` });
  otherKey = (await createApiKey(db, { resellerId: other.id, name: "other" })).key;
  recordSecret(otherKey);
  const made = await createEndpoint(db, { resellerId, url: receiver.url, events: ["*"], allowPrivate: true });
  webhookSecret = made.secret;
  recordSecret(webhookSecret);
});

afterAll(async () => {
  // A refund the provider made touches no book of ours; the order's pending profit was reversed on failure.
  if (db) await assertLedgerConsistent(db);
  await db?.$disconnect();
  await server?.stop();
  await fakes?.stop();
  await receiver.stop();
  await database?.drop();
});

interface Answer {
  status: number;
  body: any;
  text: string;
}

async function call(
  url: string,
  opts: { method?: string; body?: unknown; rawBody?: string; headers?: Record<string, string>; ip?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { "x-forwarded-for": opts.ip ?? newIp(), ...(opts.headers ?? {}) };
  let body = opts.rawBody;
  if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers["content-type"] ??= "application/json";
  const res = await fetch(`${server.baseUrl}${url}`, { method: opts.method ?? (body !== undefined ? "POST" : "GET"), headers, body });
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed, text };
}

const v1 = (path: string, opts: Parameters<typeof call>[1] & { key?: string } = {}) =>
  call(`/api/v1${path}`, { ...opts, headers: { ...(opts.key ? { "x-api-key": opts.key } : {}), ...(opts.headers ?? {}) } });
const hosted = (path: string, opts: Parameters<typeof call>[1] & { token?: string } = {}) =>
  call(`/api/hosted${path}`, {
    ...opts,
    headers: { "sec-fetch-site": "same-origin", ...(opts.token ? { "x-order-token": opts.token } : {}), ...(opts.headers ?? {}) },
  });

/** Reads until `ok` holds (a hang guard, not a speed bound). */
async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, ms = 120_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v).slice(0, 500)}`);
    await sleep(40);
  }
}

/** A hosted order on SideShift whose shift goes on hold (review) after its deposit, without a refund address. */
async function heldHostedOrder() {
  const payout = addressFor("eth");
  fakes.sideshift.script(payout, ["waiting", "pending", "processing", { status: "review", issue: "Needs review" }]);
  const made = await hosted("/orders", { body: { r: resellerId, from: "btc", to: "eth", amount: "0.1", address: payout } });
  expect(made.status, made.text).toBe(201);
  recordSecret(made.body.token);
  const shift = fakes.sideshift.shiftFor(payout)!;
  return { id: made.body.order.id as string, token: made.body.token as string, shift };
}

/** A v1 order made with the key on SideShift, scripted as given. */
async function v1Order(steps: (string | { status: string; [k: string]: unknown })[], extra: Record<string, unknown> = {}) {
  const payout = addressFor("eth");
  fakes.sideshift.script(payout, steps);
  const made = await v1("/exchange", { key, body: { from: "btc", to: "eth", amount: "0.1", address: payout, ...extra } });
  expect(made.status, made.text).toBe(201);
  return { id: made.body.id as string, shift: fakes.sideshift.shiftFor(payout)! };
}

const verify = (r: { body: string; headers: Record<string, string> }) => new Webhook(webhookSecret).verify(r.body, r.headers) as any;

describe("a hold without a refund address, resolved by the user", () => {
  it("hosted: the view and the v1 body ask for an address, a signed webhook says so, a wrong address then a right one, the refund", async () => {
    const { id, token, shift } = await heldHostedOrder();
    const view = await until(
      () => hosted(`/orders/${id}`, { token }),
      (r) => r.body.stateReason === "hold",
      "the hold",
    );
    expect(view.body).toMatchObject({
      status: "exchanging",
      stateReason: "hold",
      refundAddress: null,
      requiredAction: "provide_refund_address",
    });
    // The reseller's API shows the same (the order came through its page).
    const body = await v1(`/exchange/${id}`, { key });
    expect(body.body).toMatchObject({ status: "exchanging", requiredAction: "provide_refund_address" });

    // The event, written with the change, delivered signed like the others.
    const messages = await db.webhookMessage.findMany({ where: { subject: id, type: "order.action_required" } });
    expect(messages).toHaveLength(1);
    expect(await db.webhookDelivery.count({ where: { messageId: messages[0].id } })).toBe(1);
    await until(
      async () => receiver.events(id, "order.action_required").length,
      (n) => n === 1,
      "the webhook",
    );
    const [hook] = receiver.events(id, "order.action_required");
    // As documented: the event's schema in the served OpenAPI document (its webhooks section).
    const doc = (await (await fetch(`${server.baseUrl}/api/v1/openapi.json`)).json()) as { components: object };
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema({ $id: "openapi", components: doc.components });
    const valid = ajv.compile({ $ref: "openapi#/components/schemas/OrderActionWebhookEvent" });
    expect(valid(JSON.parse(hook.body)), ajv.errorsText(valid.errors)).toBe(true);
    expect(verify(hook).data).toMatchObject({
      orderId: id,
      status: "exchanging",
      requiredAction: "provide_refund_address",
      previousRequiredAction: null,
      channel: { type: "page", id: null },
      order: { id, stateReason: "hold", requiredAction: "provide_refund_address" },
    });

    // Without the link's secret, or with another, the order is not there.
    const refundAddress = addressFor("btc");
    for (const t of [undefined, "wrong-token", `${token.slice(0, -1)}x`]) {
      const r = await hosted(`/orders/${id}/refund-address`, { token: t, body: { refundAddress } });
      expect(r.status, r.text).toBe(404);
      expect(r.body.error.code).toBe("ORDER_NOT_FOUND");
    }
    // An address of another chain: refused here, SideShift never asked.
    const wrong = await hosted(`/orders/${id}/refund-address`, { token, body: { refundAddress: addressFor("eth") } });
    expect(wrong.status, wrong.text).toBe(422);
    expect(wrong.body.error.code).toBe("INVALID_REFUND_ADDRESS");
    expect(fakes.sideshift.refundAddressCalls.filter((c) => c.shiftId === shift.id)).toEqual([]);

    const given = await hosted(`/orders/${id}/refund-address`, { token, body: { refundAddress } });
    expect(given.status, given.text).toBe(200);
    expect(given.body).toMatchObject({ id, status: "exchanging", refundAddress, refundExtraId: null, requiredAction: "wait_for_review" });
    expect(given.body.from.ticker).toBe("btc"); // the hosted view, not the bare status body
    expect(fakes.sideshift.refundAddressCalls.filter((c) => c.shiftId === shift.id)).toEqual([
      { shiftId: shift.id, address: refundAddress, memo: undefined, status: "review", answered: 201 },
    ]);
    // The timeline notes it; the history of states does not repeat one.
    const events = await db.orderEvent.findMany({ where: { orderId: id }, orderBy: { id: "asc" } });
    expect(events.at(-1)).toMatchObject({ status: "exchanging", note: "refund_address_set" });
    expect(given.body.history.map((h: { status: string }) => h.status)).toEqual(["waiting", "confirming", "exchanging"]);
    // The action changed (an address given, the review goes on): announced too.
    const second = await db.webhookMessage.findMany({
      where: { subject: id, type: "order.action_required" },
      orderBy: { createdAt: "asc" },
    });
    expect(second.map((m) => JSON.parse(m.payload).data.requiredAction)).toEqual(["provide_refund_address", "wait_for_review"]);

    // SideShift refunds to it: the order fails as refunded, with the refund's hash, asking nothing.
    fakes.sideshift.refund(shift.id);
    const done = await until(
      () => hosted(`/orders/${id}`, { token }),
      (r) => r.body.status === "failed",
      "the refund",
    );
    expect(done.body).toMatchObject({
      status: "failed",
      failureReason: "refunded",
      refundAddress,
      refund: { state: "sent", hash: `ss-refund-${shift.id}` },
      requiredAction: null,
      stateReason: null,
    });
    expect((await v1(`/exchange/${id}`, { key })).body).toMatchObject({ refund: { hash: `ss-refund-${shift.id}` }, requiredAction: null });
    // Refunded, it takes no other address.
    const late = await hosted(`/orders/${id}/refund-address`, { token, body: { refundAddress: addressFor("btc") } });
    expect(late.status, late.text).toBe(409);
    expect(late.body.error.code).toBe("REFUND_ADDRESS_LOCKED");
  });

  it("v1: the key of the order's reseller gives the address; another reseller's key gets 404, none gets 401", async () => {
    const { id, shift } = await v1Order(["waiting", "pending", "processing", "review"]);
    await until(
      () => v1(`/exchange/${id}`, { key }),
      (r) => r.body.requiredAction === "provide_refund_address",
      "the hold",
    );
    const refundAddress = addressFor("btc");
    const other = await v1(`/exchange/${id}/refund-address`, { key: otherKey, body: { refundAddress } });
    expect(other.status, other.text).toBe(404);
    expect(other.body.error.code).toBe("ORDER_NOT_FOUND");
    const keyless = await v1(`/exchange/${id}/refund-address`, { body: { refundAddress } });
    expect(keyless.status, keyless.text).toBe(401);
    expect(keyless.body.error.code).toBe("API_KEY_REQUIRED");
    const bad = await v1(`/exchange/${id}/refund-address`, { key, body: { refundAddress: "1NotABitcoinAddress" } });
    expect(bad.status, bad.text).toBe(422);
    expect(bad.body.error.code).toBe("INVALID_REFUND_ADDRESS");
    // SideShift refuses an address of its own: its refusal is the client's 422, nothing is stored.
    const ours = addressFor("btc");
    fakes.sideshift.refusedRefundAddresses.add(ours);
    const refused = await v1(`/exchange/${id}/refund-address`, { key, body: { refundAddress: ours } });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.error.code).toBe("INVALID_REFUND_ADDRESS");
    expect((await db.order.findUniqueOrThrow({ where: { id } })).refundAddress).toBeNull();

    const given = await v1(`/exchange/${id}/refund-address`, { key, body: { refundAddress } });
    expect(given.status, given.text).toBe(200);
    expect(given.body).toMatchObject({ id, refundAddress, requiredAction: "wait_for_review" });
    expect(given.body.from).toBeUndefined(); // the v1 status body
    // The same again is a retry: the order as it is, SideShift not asked twice.
    const again = await v1(`/exchange/${id}/refund-address`, { key, body: { refundAddress: ` ${refundAddress} ` } });
    expect(again.status, again.text).toBe(200);
    expect(fakes.sideshift.refundAddressCalls.filter((c) => c.shiftId === shift.id && c.answered === 201)).toHaveLength(1);
    // Another address once one is set: 409.
    const change = await v1(`/exchange/${id}/refund-address`, { key, body: { refundAddress: addressFor("btc") } });
    expect(change.status, change.text).toBe(409);
    expect(change.body.error.code).toBe("REFUND_ADDRESS_LOCKED");

    fakes.sideshift.refund(shift.id);
    const done = await until(
      () => v1(`/exchange/${id}`, { key }),
      (r) => r.body.status === "failed",
      "the refund",
    );
    expect(done.body).toMatchObject({
      failureReason: "refunded",
      refund: { state: "sent", hash: `ss-refund-${shift.id}` },
      requiredAction: null,
    });
  });

  it("a refund queued without an address (needs_action): the address sends it", async () => {
    const { id, shift } = await v1Order(["waiting", "pending", "processing", "refund"]);
    const held = await until(
      () => v1(`/exchange/${id}`, { key }),
      (r) => r.body.stateReason === "needs_action",
      "the queued refund",
    );
    expect(held.body).toMatchObject({ status: "exchanging", requiredAction: "provide_refund_address" });
    const refundAddress = addressFor("btc");
    expect((await v1(`/exchange/${id}/refund-address`, { key, body: { refundAddress } })).status).toBe(200);
    fakes.sideshift.refund(shift.id);
    const done = await until(
      () => v1(`/exchange/${id}`, { key }),
      (r) => r.body.status === "failed",
      "the refund",
    );
    expect(done.body).toMatchObject({
      failureReason: "refunded",
      refundAddress,
      refund: { hash: `ss-refund-${shift.id}` },
      requiredAction: null,
    });
    const actions = await db.webhookMessage.findMany({
      where: { subject: id, type: "order.action_required" },
      orderBy: { createdAt: "asc" },
    });
    expect(actions.map((m) => JSON.parse(m.payload).data.requiredAction)).toEqual(["provide_refund_address"]);
  });
});

describe("at once", () => {
  it("two addresses given at once: one is taken, SideShift hears only it; the same one twice: both answered, one call", async () => {
    const { id, shift } = await v1Order(["waiting", "pending", "processing", "review"]);
    await until(
      () => v1(`/exchange/${id}`, { key }),
      (r) => r.body.requiredAction === "provide_refund_address",
      "the hold",
    );
    const [a, b] = [addressFor("btc"), addressFor("btc")];
    const answers = await Promise.all(
      [a, b].map((refundAddress) => v1(`/exchange/${id}/refund-address`, { key, body: { refundAddress } })),
    );
    expect(answers.map((r) => r.status).sort(), answers.map((r) => r.text).join("\n")).toEqual([200, 409]);
    const winner = answers.find((r) => r.status === 200)!.body.refundAddress;
    expect(answers.find((r) => r.status === 409)!.body.error.code).toBe("REFUND_ADDRESS_LOCKED");
    const calls = fakes.sideshift.refundAddressCalls.filter((c) => c.shiftId === shift.id);
    expect(calls.map((c) => c.address)).toEqual([winner]);
    expect((await db.order.findUniqueOrThrow({ where: { id } })).refundAddress).toBe(winner);

    const second = await v1Order(["waiting", "pending", "processing", "review"]);
    await until(
      () => v1(`/exchange/${second.id}`, { key }),
      (r) => r.body.requiredAction === "provide_refund_address",
      "the hold",
    );
    const same = await Promise.all([1, 2, 3].map(() => v1(`/exchange/${second.id}/refund-address`, { key, body: { refundAddress: a } })));
    expect(same.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(fakes.sideshift.refundAddressCalls.filter((c) => c.shiftId === second.shift.id)).toHaveLength(1);
    // One note on the timeline, one announcement of the new action.
    expect(await db.orderEvent.count({ where: { orderId: second.id, note: "refund_address_set" } })).toBe(1);
    const actions = await db.webhookMessage.findMany({
      where: { subject: second.id, type: "order.action_required" },
      orderBy: { createdAt: "asc" },
    });
    expect(actions.map((m) => JSON.parse(m.payload).data.requiredAction)).toEqual(["provide_refund_address", "wait_for_review"]);
  });
});

describe("refusals", () => {
  it("409: a finished order, an order that has an address, a provider that cannot take one", async () => {
    const finished = await v1Order(["waiting", "pending", "processing", "settling", "settled"]);
    await until(
      () => v1(`/exchange/${finished.id}`, { key }),
      (r) => r.body.status === "finished",
      "the order to finish",
    );
    const late = await v1(`/exchange/${finished.id}/refund-address`, { key, body: { refundAddress: addressFor("btc") } });
    expect(late.status, late.text).toBe(409);
    expect(late.body.error.code).toBe("REFUND_ADDRESS_LOCKED");

    const given = await v1Order(["waiting"], { refundAddress: addressFor("btc") });
    const other = await v1(`/exchange/${given.id}/refund-address`, { key, body: { refundAddress: addressFor("btc") } });
    expect(other.status, other.text).toBe(409);
    expect(other.body.error.code).toBe("REFUND_ADDRESS_LOCKED");

    // ChangeNOW's API has no such call: an open order there cannot take one.
    const payout = addressFor("eth");
    fakes.changenow.script(payout, ["new", "waiting"]);
    const cn = await v1("/exchange", { key, body: { from: "ltc", to: "eth", amount: "1", address: payout } });
    expect(cn.status, cn.text).toBe(201);
    expect((await db.order.findUniqueOrThrow({ where: { id: cn.body.id } })).provider).toBe("changenow");
    const unsupported = await v1(`/exchange/${cn.body.id}/refund-address`, { key, body: { refundAddress: addressFor("ltc") } });
    expect(unsupported.status, unsupported.text).toBe(409);
    expect(unsupported.body.error.code).toBe("REFUND_ADDRESS_UNSUPPORTED");
    expect(isErrorShape(unsupported.body)).toBe(true);

    // A keyless order is visible by its id, but no key may redirect its refund.
    const keyless = await v1("/exchange", { body: { from: "btc", to: "eth", amount: "0.1", address: addressFor("eth") } });
    expect(keyless.status, keyless.text).toBe(201);
    const nobody = await v1(`/exchange/${keyless.body.id}/refund-address`, { key, body: { refundAddress: addressFor("btc") } });
    expect(nobody.status, nobody.text).toBe(404);

    // No order, or not an order id: 404.
    for (const bad of ["0123456789abcdef01234567", "nope", "%00"]) {
      const r = await v1(`/exchange/${bad}/refund-address`, { key, body: { refundAddress: addressFor("btc") } });
      expect(r.status, r.text).toBe(404);
    }
  });

  it("bodies: malformed, mistyped, extra, huge, NULs and control characters are 400/413/415/422, never a 500", async () => {
    const { id, token } = await heldHostedOrder();
    const addr = addressFor("btc");
    const bodies: { rawBody?: string; body?: unknown; headers?: Record<string, string>; want: number[] }[] = [
      { rawBody: '{"refundAddress": ', want: [400] },
      { rawBody: "[]", want: [400] },
      { rawBody: "null", want: [400] },
      { rawBody: '"bc1q"', want: [400] },
      { rawBody: "", want: [400] },
      { body: {}, want: [400] },
      { body: { refundAddress: 12345 }, want: [400] },
      { body: { refundAddress: null }, want: [400] },
      { body: { refundAddress: ["a"] }, want: [400] },
      { body: { refundAddress: { a: 1 } }, want: [400] },
      { body: { refundAddress: addr, refundExtraId: 7 }, want: [400] },
      { body: { refundAddress: addr, extra: true }, want: [400] },
      { body: { refundAddress: "" }, want: [400] },
      { body: { refundAddress: "x".repeat(257) }, want: [400] },
      { body: { refundAddress: "x".repeat(200_000) }, want: [400, 413] },
      { body: { refundAddress: `${addr}\u0000` }, want: [400] },
      { body: { refundAddress: "\u0000" }, want: [400] },
      { body: { refundAddress: addr, refundExtraId: "\u0000" }, want: [400] },
      { body: { refundAddress: "   " }, want: [422] },
      { body: { refundAddress: "\u202e\ud83d\ude00" }, want: [422] },
      { body: { refundAddress: "\ud800" }, want: [422] },
      { body: { refundAddress: addr, refundExtraId: "memo" }, want: [422] },
      { body: { refundAddress: addr }, headers: { "content-type": "text/plain" }, want: [415] },
    ];
    for (const b of bodies) {
      const opts = { body: b.body, rawBody: b.rawBody, headers: { "content-type": "application/json", ...(b.headers ?? {}) } };
      for (const r of [
        await hosted(`/orders/${id}/refund-address`, { ...opts, token }),
        await v1(`/exchange/${id}/refund-address`, { ...opts, key }),
      ]) {
        expect(b.want, `${JSON.stringify(b.body ?? b.rawBody).slice(0, 80)}: ${r.status} ${r.text.slice(0, 200)}`).toContain(r.status);
        expect(isErrorShape(r.body), r.text).toBe(true);
      }
    }
    expect(
      (await v1(`/exchange/${id}/refund-address`, { key, body: { refundAddress: addr, refundExtraId: "memo" } })).body.error.code,
    ).toBe("INVALID_REFUND_EXTRA_ID");
    // Nothing of it reached the order.
    expect((await db.order.findUniqueOrThrow({ where: { id } })).refundAddress).toBeNull();
  });
});

describe("the simulated engine (the suite's server): our own refund path", () => {
  it("a keyless order has no door for an address: its failure asks the user to contact support", async () => {
    const ip = newIp();
    const made = await api("/exchange", { ip, body: { from: "btc", to: "eth", amount: "0.01", address: addressFor("eth") } });
    expect(made.status, made.text).toBe(201);
    expect((await api(`/sandbox/exchange/${made.body.id}/deposit`, { ip, body: { amount: "0.00000001" } })).status).toBe(200);
    const { order } = await pollUntil(made.body.id, ["failed"]);
    expect(order).toMatchObject({ refund: { state: "awaiting_address" }, requiredAction: "contact_support" });
  });

  it("a failed order whose refund awaits an address asks for one; given, the refund is sent", async () => {
    const { key: simKey, reseller } = await makeReseller();
    // Delivery is not this test's subject (the address is never reached): the outbox is.
    await createEndpoint(testDb(), {
      resellerId: reseller.id,
      url: "https://hooks.example.com/actions",
      events: ["order.action_required"],
    });
    const made = await api("/exchange", { key: simKey, body: { from: "btc", to: "eth", amount: "0.01", address: addressFor("eth") } });
    expect(made.status, made.text).toBe(201);
    const id = made.body.id;
    // Before any failure there is nothing to ask.
    expect((await api(`/exchange/${id}`, { key: simKey })).body.requiredAction).toBeNull();
    expect((await api(`/sandbox/exchange/${id}/deposit`, { key: simKey, body: { amount: "0.00000001" } })).status).toBe(200);
    const { order } = await pollUntil(id, ["failed"], { key: simKey });
    expect(order).toMatchObject({
      failureReason: "deposit_below_minimum",
      refundAddress: null,
      refund: { state: "awaiting_address", hash: null },
      requiredAction: "provide_refund_address",
    });
    // The failure (a step of the worker) announced it, in its transaction: one message, for the one endpoint.
    const messages = await testDb().webhookMessage.findMany({
      where: { resellerId: reseller.id, subject: id, type: "order.action_required" },
    });
    expect(messages.map((m) => JSON.parse(m.payload).data)).toMatchObject([
      { orderId: id, status: "failed", requiredAction: "provide_refund_address", previousRequiredAction: null },
    ]);

    const refundAddress = addressFor("btc");
    const given = await api(`/exchange/${id}/refund-address`, { key: simKey, body: { refundAddress } });
    expect(given.status, given.text).toBe(200);
    expect(given.body).toMatchObject({ status: "failed", refundAddress, refund: { state: "sent" }, requiredAction: null });
    expect(given.body.refund.hash).toMatch(/^[0-9a-f]{64}$/);
    expect((await api(`/exchange/${id}`, { key: simKey })).body).toEqual(given.body);
    const again = await api(`/exchange/${id}/refund-address`, { key: simKey, body: { refundAddress: addressFor("btc") } });
    expect(again.status, again.text).toBe(409);
    expect(again.body.error.code).toBe("REFUND_ADDRESS_LOCKED");
  });
});
