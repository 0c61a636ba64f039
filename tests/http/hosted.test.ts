import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { createWidget, setKeyMarkup, setWidgetEnabled, updateWidget } from "@/lib/channels/channels";
import { getCurrency } from "@/lib/currencies";
import { getChannelStats } from "@/lib/dashboard/channels";
import { ordersCsv } from "@/lib/dashboard/export";
import { listResellerOrders, parseOrderQuery } from "@/lib/dashboard/orders";
import { AppError } from "@/lib/errors";
import { D } from "@/lib/money/decimal";
import { createEndpoint } from "@/lib/webhooks/endpoints";
import { addressFor, api, baseUrl, makeReseller, newIp, pollUntil, sleep, testDb, withinKeyChangeBound } from "../support/api";
import { recordSecret } from "../support/secrets";

// The hosted exchange page's and the widget's API (/api/hosted) and channels, against the
// built app: requests only from the page itself, no CORS, per-IP limits; a widget's order
// gets its channel and markup; the status needs the link's secret; per-key markup at once;
// the orders list, CSV, overview figures and webhooks by channel.

const SAME_ORIGIN = { "sec-fetch-site": "same-origin" };
const hosted = (path: string, opts: Parameters<typeof api>[1] = {}) =>
  api(path, { ...opts, prefix: "/api/hosted", headers: { ...SAME_ORIGIN, ...(opts.headers ?? {}) } });

async function csvRows(stream: ReadableStream<Uint8Array>) {
  const text = await new Response(stream).text();
  const [header, ...lines] = text.trim().split(/\r?\n/);
  const cols = header.split(",");
  return lines.map((l) => Object.fromEntries(l.split(",").map((v, i) => [cols[i], v])));
}

async function widgetOrder(widgetId: string, opts: { amount?: string; ip?: string } = {}) {
  const r = await hosted("/orders", {
    ip: opts.ip,
    body: {
      w: widgetId,
      from: "btc",
      to: "eth",
      amount: opts.amount ?? "0.05",
      address: addressFor("eth"),
      refundAddress: addressFor("btc"),
    },
  });
  expect(r.status, r.text).toBe(201);
  recordSecret(r.body.token);
  return r.body as { token: string; statusPath: string; order: { id: string; toAmount: number; status: string } };
}

describe("hosted page API: who may call it", () => {
  it("answers only the page itself (Sec-Fetch-Site same-origin, or Origin naming the app), with no CORS headers", async () => {
    const { reseller } = await makeReseller();
    const q = `/estimate?r=${reseller.id}&from=btc&to=eth&amount=0.1`;
    const ok = await hosted(q);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBeNull();
    const refused: Record<string, string>[] = [
      {},
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
      { "sec-fetch-site": "none" },
      { origin: "https://evil.example" },
    ];
    for (const headers of refused) {
      const r = await api(q, { prefix: "/api/hosted", headers });
      expect([r.status, r.body.error?.code], JSON.stringify(headers)).toEqual([403, "FORBIDDEN_ORIGIN"]);
      expect(r.headers.get("access-control-allow-origin")).toBeNull();
    }
    // Without Sec-Fetch-Site, the app's own Origin (APP_URL) is the page.
    const appOrigin = `http://localhost:${new URL(baseUrl()).port}`;
    expect((await api(q, { prefix: "/api/hosted", headers: { origin: appOrigin } })).status).toBe(200);
    // A cross-site preflight gets no CORS answer either.
    const pre = await fetch(`${baseUrl("/api/hosted")}/orders`, {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    });
    expect(pre.headers.get("access-control-allow-origin")).toBeNull();
    expect(pre.status).not.toBe(204);
  });

  it("counts against the client IP's keyless limits", async () => {
    const { reseller } = await makeReseller();
    const r = await hosted(`/estimate?r=${reseller.id}&from=btc&to=eth&amount=0.1`);
    expect(r.headers.get("ratelimit-policy")).toMatch(/"minute";q=60;w=60/);
    const ip = newIp();
    const before = await api("/currencies", { ip });
    const left = Number(/r=(\d+)/.exec(before.headers.get("ratelimit") ?? "")?.[1]);
    await hosted(`/estimate?r=${reseller.id}&from=btc&to=eth&amount=0.1`, { ip });
    const after = await api("/currencies", { ip });
    // The v1 keyless tier and the hosted API share the IP's budget: two requests later, two fewer.
    expect(Number(/r=(\d+)/.exec(after.headers.get("ratelimit") ?? "")?.[1])).toBe(left - 2);
    // An order counts against the IP's daily orders too (shared with keyless v1 orders).
    const made = await hosted("/orders", {
      ip,
      body: { r: reseller.id, from: "btc", to: "eth", amount: "0.05", address: addressFor("eth") },
    });
    expect(made.status).toBe(201);
    recordSecret(made.body.token);
    expect(made.headers.get("ratelimit-policy")).toMatch(/"day";q=\d+;w=86400/);
    expect(made.headers.get("ratelimit")).toMatch(/"day";r=\d+;t=\d+/);
    const dayLeft = Number(/"day";r=(\d+)/.exec(made.headers.get("ratelimit") ?? "")?.[1]);
    const v1 = await api("/exchange", { ip, body: { from: "btc", to: "eth", amount: "0.05", address: addressFor("eth") } });
    expect(Number(/"day";r=(\d+)/.exec(v1.headers.get("ratelimit") ?? "")?.[1])).toBe(dayLeft - 1);
  });

  it("unknown pages, disabled widgets and revoked resellers are one 404", async () => {
    const { reseller } = await makeReseller();
    const w = await createWidget(testDb(), { resellerId: reseller.id, input: { name: "w" } });
    expect((await hosted(`/estimate?w=${w.id}&from=btc&to=eth&amount=0.1`)).status).toBe(200);
    await setWidgetEnabled(testDb(), { resellerId: reseller.id, widgetId: w.id, enabled: false });
    for (const q of [`w=${w.id}`, "w=wgNope", "r=nope", ""]) {
      const r = await hosted(`/estimate?${q}&from=btc&to=eth&amount=0.1`);
      expect([r.status, r.body.error.code], q).toEqual([404, "NOT_FOUND"]);
    }
  });
});

describe("a widget's order", () => {
  it("has the widget's markup and channel, and the estimate said so; fixed rates give no rateId", async () => {
    const { reseller } = await makeReseller({ markupBps: 100 });
    const w = await createWidget(testDb(), { resellerId: reseller.id, input: { name: "Shop", markupBps: 200 } });
    const keyless = await api("/estimate?from=btc&to=eth&amount=0.05");
    const est = await hosted(`/estimate?w=${w.id}&from=btc&to=eth&amount=0.05`);
    expect(est.status, est.text).toBe(200);
    expect(est.body.fee).toBe("2.25%");
    // toAmount = floor(keyless x (1 - 2%)) at the destination's precision, as a decimal string.
    const raw = new D(/"toAmount":([0-9.]+)/.exec(keyless.text)![1]);
    const eth = getCurrency("eth")!.precision;
    expect(est.body.toAmount).toBe(raw.mul("0.98").toDecimalPlaces(eth, D.ROUND_DOWN).toFixed());

    const quotesBefore = await testDb().rateQuote.count();
    const fixed = await hosted(`/estimate?w=${w.id}&from=btc&to=eth&amount=0.05&rateType=fixed`);
    expect(fixed.status).toBe(200);
    expect(fixed.body.rateType).toBe("fixed");
    expect(fixed.body).not.toHaveProperty("rateId");
    expect(await testDb().rateQuote.count()).toBe(quotesBefore);
    // A body naming a rateId is refused: the page locks a rate only by creating the order.
    const withRate = await hosted("/orders", {
      body: { w: w.id, from: "btc", to: "eth", amount: "0.05", rateType: "fixed", rateId: "rate_x", address: addressFor("eth") },
    });
    expect(withRate.status).toBe(400);

    const made = await widgetOrder(w.id);
    const row = await testDb().order.findUniqueOrThrow({ where: { id: made.order.id } });
    expect(row).toMatchObject({ resellerId: reseller.id, apiKeyId: null, channel: `widget:${w.id}`, markupBps: 200 });
    expect(new D(row.profit).eq(new D(row.rawToAmount).minus(row.toAmount))).toBe(true);
    expect(new D(row.toAmount).eq(new D(row.rawToAmount).mul("0.98").toDecimalPlaces(eth, D.ROUND_DOWN))).toBe(true);
    // Only the secret's hash is stored.
    expect(row.accessTokenHash).toBe(crypto.createHash("sha256").update(made.token).digest("hex"));
    expect(JSON.stringify(row)).not.toContain(made.token);
    // The secret in the query, so that a page without JavaScript can send it (docs/widgets.md).
    expect(made.statusPath).toBe(`/o/${row.id}?t=${made.token}`);
  });

  it("its status opens only with the link's secret, polls with ETag, and follows the sandbox deposit to finished", async () => {
    const { reseller } = await makeReseller();
    const w = await createWidget(testDb(), { resellerId: reseller.id, input: { name: "Blog", markupBps: 120 } });
    const { token, order } = await widgetOrder(w.id);
    const path = `/orders/${order.id}`;
    const wrong: Record<string, string>[] = [{}, { "x-order-token": "x".repeat(32) }, { "x-order-token": token.slice(0, -1) }];
    for (const headers of wrong) {
      const r = await hosted(path, { headers });
      expect([r.status, r.body.error.code]).toEqual([404, "ORDER_NOT_FOUND"]);
    }
    // Neither does the v1 API open it without the reseller's key.
    expect((await api(`/exchange/${order.id}`)).status).toBe(404);
    const first = await hosted(path, { headers: { "x-order-token": token } });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      id: order.id,
      status: "waiting",
      from: { ticker: "btc", network: "bitcoin" },
      to: { ticker: "eth" },
    });
    // A PNG (Tor Browser's "Safest" level shows no SVG).
    expect(first.body.depositQr).toMatch(/^data:image\/png;base64,/);
    expect(Buffer.from(first.body.depositQr.split(",")[1], "base64").subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
    expect(first.body.amountSent).toBeNull();
    const etag = first.headers.get("etag")!;
    expect(first.headers.get("poll-after")).toMatch(/^\d+$/);
    const same = await hosted(path, { headers: { "x-order-token": token, "if-none-match": etag } });
    expect([same.status, same.text]).toEqual([304, ""]);

    const dep = await hosted(`${path}/deposit`, { method: "POST", headers: { "x-order-token": token } });
    expect(dep.status, dep.text).toBe(200);
    expect(dep.body.status).toBe("confirming");
    expect((await hosted(`${path}/deposit`, { method: "POST" })).status).toBe(404);
    let last: any;
    for (const deadline = Date.now() + 120_000; Date.now() < deadline; await sleep(50)) {
      last = (await hosted(path, { headers: { "x-order-token": token } })).body;
      if (last.status === "finished" || last.status === "failed") break;
    }
    expect(last.status).toBe("finished");
    expect(last.history.map((h: { status: string }) => h.status)).toEqual(["waiting", "confirming", "exchanging", "sending", "finished"]);
    expect(last.payoutHash).toBeTruthy();
    expect(last.links.payout).toBe(`https://etherscan.io/tx/${last.payoutHash}`);
    expect(last.depositQr).toBeNull();
    // What was sent, once finished: the order's amount to receive.
    expect(last.amountSent).toBe(String(last.toAmount));
  });

  it("a failed order's status shows the refund, with its hash linked to the explorer", async () => {
    const { key, reseller } = await makeReseller();
    const w = await createWidget(testDb(), { resellerId: reseller.id, input: { name: "Refunds" } });
    const { token, order } = await widgetOrder(w.id);
    // A deposit above the pair's maximum (reported with the reseller's key, the order being its own).
    const dep = await api(`/sandbox/exchange/${order.id}/deposit`, { key, body: { amount: "10" } });
    expect(dep.status, dep.text).toBe(200);
    await pollUntil(order.id, ["failed"], { key });
    const r = await hosted(`/orders/${order.id}`, { headers: { "x-order-token": token } });
    expect(r.body).toMatchObject({ status: "failed", failureReason: "deposit_above_maximum", refund: { state: "sent", amount: 10 } });
    expect(r.body.links.refund).toBe(`https://mempool.space/tx/${r.body.refund.hash}`);
  });

  it("is refused like a v1 order when an address is wrong, and the address check says why as it is typed", async () => {
    const { reseller } = await makeReseller();
    const bad = await hosted("/orders", { body: { r: reseller.id, from: "btc", to: "eth", amount: "0.05", address: addressFor("btc") } });
    expect([bad.status, bad.body.error.code]).toEqual([422, "INVALID_ADDRESS"]);
    const good = await hosted(`/address?currency=eth&address=${addressFor("eth")}`);
    expect(good.body).toMatchObject({ valid: true, reason: null });
    const wrong = await hosted(`/address?currency=strk&address=${addressFor("eth")}`);
    expect(wrong.body.valid).toBe(false);
    expect(wrong.body.reason).toMatch(/Ethereum/);
    const memo = await hosted(`/address?currency=xrp&address=${addressFor("xrp")}&extraId=notanumber`);
    expect(memo.body).toMatchObject({ valid: true, extraIdValid: false });
  });
});

describe("channels", () => {
  it("a key's own markup applies to its estimates and orders (within the key cache's bound)", async () => {
    const { key, reseller, apiKey } = await makeReseller({ markupBps: 150 });
    expect((await api("/estimate?from=btc&to=eth&amount=0.1", { key })).body.fee).toBe("1.75%");
    const estimate = () => api("/estimate?from=btc&to=eth&amount=0.1", { key });
    await setKeyMarkup(testDb(), { resellerId: reseller.id, keyId: apiKey.id, markupBps: 400 });
    // Made by this process, not the server's: it applies there within the key cache's bound.
    expect((await withinKeyChangeBound(estimate, (r) => r.body.fee === "4.25%")).body.fee).toBe("4.25%");
    const o = await api("/exchange", { key, body: { from: "btc", to: "eth", amount: "0.1", address: addressFor("eth") } });
    expect(o.status).toBe(201);
    expect(await testDb().order.findUniqueOrThrow({ where: { id: o.body.id } })).toMatchObject({
      markupBps: 400,
      channel: `key:${apiKey.id}`,
    });
    await setKeyMarkup(testDb(), { resellerId: reseller.id, keyId: apiKey.id, markupBps: null });
    expect((await withinKeyChangeBound(estimate, (r) => r.body.fee === "1.75%")).body.fee).toBe("1.75%");
  });

  it("the orders list and the CSV filter by channel; the overview's per-channel profit is the ledger's; webhooks carry the channel", async () => {
    const { key, reseller, apiKey } = await makeReseller({ markupBps: 100 });
    const db = testDb();
    await createEndpoint(db, { resellerId: reseller.id, url: "https://hooks.example.com/h", events: ["order.created"] });
    const w = await createWidget(db, { resellerId: reseller.id, input: { name: "Forum", markupBps: 300 } });
    const keyed = await api("/exchange", { key, body: { from: "btc", to: "eth", amount: "0.02", address: addressFor("eth") } });
    const byWidget = await widgetOrder(w.id, { amount: "0.03" });
    const onPage = await hosted("/orders", {
      body: { r: reseller.id, from: "btc", to: "eth", amount: "0.04", address: addressFor("eth") },
    });
    expect(onPage.status).toBe(201);
    recordSecret(onPage.body.token);
    for (const id of [keyed.body.id]) {
      await api(`/sandbox/exchange/${id}/deposit`, { key, method: "POST" });
      await pollUntil(id, ["finished"], { key });
    }
    await hosted(`/orders/${byWidget.order.id}/deposit`, { method: "POST", headers: { "x-order-token": byWidget.token } });
    await pollUntil(byWidget.order.id, ["finished"], { key });

    const ids = (channel: string) =>
      listResellerOrders(db, parseOrderQuery(reseller.id, { channel })).then((l) => l.items.map((i) => i.id));
    expect(await ids(`widget:${w.id}`)).toEqual([byWidget.order.id]);
    expect(await ids(`key:${apiKey.id}`)).toEqual([keyed.body.id]);
    expect(await ids("page")).toEqual([onPage.body.order.id]);
    expect((await ids("nonsense")).sort()).toEqual([keyed.body.id, byWidget.order.id, onPage.body.order.id].sort());
    const csv = await csvRows(ordersCsv(db, parseOrderQuery(reseller.id, { channel: `widget:${w.id}` })));
    expect(csv.map((r) => [r.id, r.channel, r.markup_bps])).toEqual([[byWidget.order.id, `widget:${w.id}`, "300"]]);

    // Per channel: orders and profit; the profits add up to the ledger's credited profit exactly.
    const { channels: stats, others } = await getChannelStats(db, { resellerId: reseller.id, days: 7 });
    expect(others).toBeNull();
    const of = (channel: string) => stats.find((s) => s.channel === channel)!;
    expect(of(`widget:${w.id}`)).toMatchObject({ type: "widget", label: "Forum", markupBps: 300, orders: 1, finished: 1 });
    expect(of(`key:${apiKey.id}`)).toMatchObject({ type: "key", markupBps: 100, orders: 1, finished: 1 });
    expect(of("page")).toMatchObject({ type: "page", orders: 1, finished: 0, profit: [] });
    // Its USD figures are at live prices: a finished order has a volume and a profit in dollars.
    expect(new D(of(`widget:${w.id}`).volumeUsd).gt(0)).toBe(true);
    expect(new D(of(`widget:${w.id}`).profitUsd).gt(0)).toBe(true);
    const settled = await db.ledgerEntry.findMany({
      where: { resellerId: reseller.id, kind: "order_profit_settle" },
      include: { order: true },
    });
    expect(settled).toHaveLength(2);
    for (const e of settled) {
      const s = of(e.order!.channel!);
      expect(s.profit).toEqual([{ currency: "eth", amount: new D(e.amount).toFixed() }]);
      expect(new D(e.amount).eq(new D(e.order!.rawToAmount).minus(e.order!.toAmount))).toBe(true);
    }
    const total = stats.flatMap((s) => s.profit).reduce((a, p) => a.plus(p.amount), new D(0));
    expect(total.eq(settled.reduce((a, e) => a.plus(e.amount), new D(0)))).toBe(true);

    // Every order event carries its order's channel: the creations, and the state changes after them.
    await createEndpoint(db, { resellerId: reseller.id, url: "https://hooks.example.com/all", events: ["*"] });
    const expected = {
      [keyed.body.id]: { type: "key", id: apiKey.id },
      [byWidget.order.id]: { type: "widget", id: w.id },
      [onPage.body.order.id]: { type: "page", id: null },
    };
    const created = await db.webhookMessage.findMany({ where: { resellerId: reseller.id, type: "order.created" } });
    expect(Object.fromEntries(created.map((m) => [JSON.parse(m.payload).data.orderId, JSON.parse(m.payload).data.channel]))).toEqual(
      expected,
    );
    // The page's order, deposited now that an endpoint takes every event, announces its state changes with its channel.
    await hosted(`/orders/${onPage.body.order.id}/deposit`, { method: "POST", headers: { "x-order-token": onPage.body.token } });
    await pollUntil(onPage.body.order.id, ["finished"], { key });
    const changed = await db.webhookMessage.findMany({ where: { resellerId: reseller.id, type: "order.status_changed" } });
    expect(changed.length).toBeGreaterThanOrEqual(4);
    for (const m of changed) {
      const data = JSON.parse(m.payload).data;
      expect(data.channel).toEqual(expected[data.orderId]);
    }
  });
});

describe("pages", () => {
  it("a widget may be framed by its listed sites only; every other page by none, whatever the request says", async () => {
    const { reseller } = await makeReseller();
    const w = await createWidget(testDb(), {
      resellerId: reseller.id,
      input: { name: "Framed", allowedOrigins: ["https://shop.example", "http://127.0.0.1:9999"] },
    });
    const origin = baseUrl("");
    const page = await fetch(`${origin}/w/${w.id}`, { headers: { "x-frame-ancestors": "*" } });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toMatch(
      /(^|; )frame-ancestors 'self' https:\/\/shop\.example http:\/\/127\.0\.0\.1:9999(;|$)/,
    );
    expect(page.headers.get("x-frame-options")).toBeNull();
    const html = await page.text();
    expect(html).not.toMatch(/rsk_live_|whsec_/);
    // Every src and href of the page is the app's own: nothing from third parties.
    for (const m of html.matchAll(/(?:src|href)="([^"]+)"/g)) expect(m[1].startsWith("/") || m[1].startsWith(origin), m[1]).toBe(true);

    // A wildcard subdomain is expressible (CSP's "*."), so it is listed beside the others (issue 48:
    // it used to turn the whole header into 'none', the dashboard's preview included).
    const wild = await updateWidget(testDb(), {
      resellerId: reseller.id,
      widgetId: w.id,
      input: { name: "Framed", allowedOrigins: ["http://localhost:3871", "https://*.Shop.example", "https://bücher.example:443/"] },
    });
    expect(wild.allowedOrigins).toEqual(["http://localhost:3871", "https://*.shop.example", "https://xn--bcher-kva.example"]);
    expect((await fetch(`${origin}/w/${w.id}`)).headers.get("content-security-policy")).toMatch(
      /(^|; )frame-ancestors 'self' http:\/\/localhost:3871 https:\/\/\*\.shop\.example https:\/\/xn--bcher-kva\.example(;|$)/,
    );
    // What the header cannot express is refused at the save, saying why.
    for (const [bad, why] of [
      ["https://a_b.shop.example", /underscore/],
      ["http://[::1]:8080", /IPv6/],
      ["https://shop.*.example", /wildcard/],
    ] as const) {
      const e = await updateWidget(testDb(), {
        resellerId: reseller.id,
        widgetId: w.id,
        input: { name: "F", allowedOrigins: ["https://ok.example", bad] },
      }).catch((x: AppError) => x);
      expect(e).toBeInstanceOf(AppError);
      expect((e as AppError).code).toBe("INVALID_REQUEST");
      expect((e as AppError).message).toMatch(why);
    }
    // An origin stored before this rule, that the header cannot express, is left out alone.
    await testDb().widget.update({
      where: { id: w.id },
      data: { allowedOrigins: JSON.stringify(["https://a_b.example", "https://shop.example"]) },
    });
    expect((await fetch(`${origin}/w/${w.id}`)).headers.get("content-security-policy")).toMatch(
      /(^|; )frame-ancestors 'self' https:\/\/shop\.example(;|$)/,
    );

    const hostedPage = await fetch(`${origin}/x/${reseller.id}`, { headers: { "x-frame-ancestors": "https://evil.example" } });
    expect(hostedPage.status).toBe(200);
    expect(hostedPage.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(hostedPage.headers.get("x-frame-options")).toBe("DENY");
    expect((await fetch(`${origin}/x/nope`)).status).toBe(404);
    await setWidgetEnabled(testDb(), { resellerId: reseller.id, widgetId: w.id, enabled: false });
    const off = await fetch(`${origin}/w/${w.id}`);
    expect(off.status).toBe(404);
    expect(off.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  });
});
