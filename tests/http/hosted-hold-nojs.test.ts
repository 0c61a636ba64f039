import AxeBuilder from "@axe-core/playwright";
import { type Browser, type BrowserContext, chromium, type Page } from "@playwright/test";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { LOCALES } from "@/lib/i18n/locales";
import { setBrand } from "@/lib/resellers/brand";
import { getOrCreateReseller } from "@/lib/resellers/resellers";
import { createEndpoint } from "@/lib/webhooks/endpoints";
import { addressFor, newIp, sleep } from "../support/api";
import { CHROMIUM_LAUNCH } from "../support/chromium";
import { type Fakes, startFakes } from "../support/fake-providers";
import { secretsSeenIn } from "../support/global-server";
import { assertLedgerConsistent } from "../support/ledger";
import { recordSecret } from "../support/secrets";
import { migratedDatabase, type RunningServer, startServer, type TestDatabase } from "../support/server";
import { WebhookReceiver } from "../support/webhook-receiver";

// Issue 51, "Done when": an exchange put on hold by the SideShift test fake shows the action on
// the status page; the user gives a refund address there with JavaScript off (a wrong one first);
// the fake receives it; the refund ends the order failed with the refund's hash; the webhook
// events were sent, signed. tests/http/refund-address.test.ts tells the same story through the
// API; this file tells it through the page, in Chromium with JavaScript disabled.
//
// The app is a spawned production server (startServer), not the in-process app (startApp): the
// status page is a Next page, which only the built server serves, and the app must talk to this
// file's provider fakes (their settings), which the suite's shared server does not.

// Once, on SQLite (issue 49: a browser and a built server of its own, about 2 minutes per
// database): its subject is the page; the same hold, refund address and refund through the API
// run on both databases in tests/http/refund-address.test.ts.
const once = inject("dbKind") === "sqlite";

const SUPPORT = "support@example.com";
const BRAND = "Acme Swap";
/** Hang guards, not speed bounds (a machine loaded by other builds answers slowly). */
const HANG_MS = 120_000;

let fakes: Fakes;
let database: TestDatabase;
let server: RunningServer;
let db: Db;
let browser: Browser;
let context: BrowserContext;
let resellerId: string;
let webhookSecret: string;
const receiver = new WebhookReceiver();
/** Secrets this file used, searched for in its own server's log at the end (as the suite does for its shared server). */
const secrets: string[] = [];
const secret = (s: string) => {
  recordSecret(s);
  secrets.push(s);
  return s;
};

beforeAll(async () => {
  if (!once) return;
  await receiver.start();
  fakes = await startFakes();
  // btc -> eth on SideShift only (the provider with set-refund-address).
  fakes.setPair("btc", "eth", { sideshift: "20.6" }, { min: "0.001", max: "2" });
  fakes.sideshift.shiftsPerMinute = 1000;
  fakes.sideshift.quotesPerMinute = 1000;
  database = await migratedDatabase(inject("dbKind"));
  server = await startServer({
    databaseUrl: database.url,
    env: {
      ...fakes.env(),
      // The fakes' settings leave Next out (an API-only instance); this file's subject is a page.
      SERVE_DASHBOARD: "true",
      // The receiver listens on 127.0.0.1.
      WEBHOOK_ALLOW_PRIVATE: "true",
      // Every page load and reload of the browser comes from 127.0.0.1 and counts against its
      // keyless budget (60 a minute); the limits are tested in tests/http/rate-limits.test.ts.
      RATE_LIMIT_PUBLIC_PER_MINUTE: "1000",
      // A line per request, so the secrets check at the end sees the status page's URLs.
      LOG_LEVEL: "debug",
    },
  });
  db = createDb(database.url);
  const reseller = await getOrCreateReseller(db, { walletAddress: `0x${"5c".repeat(20)}` });
  resellerId = reseller.id;
  await setBrand(db, { resellerId, input: { name: BRAND, accent: "", support: SUPPORT, terms: "", logo: { keep: true } } });
  const made = await createEndpoint(db, { resellerId, url: receiver.url, events: ["*"], allowPrivate: true });
  webhookSecret = secret(made.secret);
  browser = await chromium.launch(CHROMIUM_LAUNCH);
  context = await browser.newContext({ javaScriptEnabled: false });
});

afterAll(async () => {
  if (!once) return;
  try {
    // A refund the provider made touches no book of ours; the order's pending profit was reversed on failure.
    if (db) await assertLedgerConsistent(db);
    if (server) {
      const leaked = secretsSeenIn(server.logs(), secrets.join("\n"));
      expect(leaked.count, `a secret in the server's log, at: ${leaked.sample}`).toBe(0);
    }
  } finally {
    await context?.close();
    await browser?.close();
    await db?.$disconnect();
    await server?.stop();
    await fakes?.stop();
    await receiver.stop();
    await database?.drop();
  }
});

interface Answer {
  status: number;
  body: any;
  text: string;
}

/** The hosted API, as the page's own origin would call it. */
async function hosted(path: string, opts: { body?: unknown; token?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = { "x-forwarded-for": newIp(), "sec-fetch-site": "same-origin" };
  if (opts.token) headers["x-order-token"] = opts.token;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${server.baseUrl}/api/hosted${path}`, {
    method: opts.body !== undefined ? "POST" : "GET",
    headers,
    body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
  });
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  return { status: res.status, body, text };
}

/** Reads until `ok` holds (a hang guard, not a speed bound). */
async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, ms = HANG_MS): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v).slice(0, 500)}`);
    await sleep(40);
  }
}

/**
 * The status page in `page`, loaded only when the test loads it. Without JavaScript the page
 * reloads itself (its <noscript> meta refresh, every 5 to 30 s; asserted on the page's HTML);
 * on a loaded machine such a reload could come between filling the form and reading what the
 * POST answered, and the page read would be another one. A GET of the status page that the test
 * did not make is answered 204 No Content, on which a browser stays on the page it has; the
 * test's own loads, the form's POST and a redirect after it go to the app.
 */
async function ownLoadsOnly(page: Page, id: string): Promise<(url: string) => ReturnType<Page["goto"]>> {
  let own = false;
  await page.route(
    (u) => u.pathname === `/o/${id}`,
    (route) => {
      const r = route.request();
      if (!own && r.isNavigationRequest() && r.method() === "GET" && !r.redirectedFrom()) return route.fulfill({ status: 204 });
      return route.continue();
    },
  );
  return async (url) => {
    own = true;
    try {
      return await page.goto(url);
    } finally {
      own = false;
    }
  };
}

/**
 * Opens the status page again and again until `selector` is on it (a hang guard, not a speed
 * bound): what its meta refresh would do, sooner. Always a GET of the status URL, never
 * page.reload(): after the form's POST a reload would post the form again.
 */
async function openUntil(
  load: (url: string) => ReturnType<Page["goto"]>,
  url: string,
  selector: string,
  what: string,
  page: Page,
): Promise<void> {
  const end = Date.now() + HANG_MS;
  for (;;) {
    try {
      const res = await load(url);
      expect(res?.status()).toBe(200);
      if ((await page.locator(selector).count()) > 0) return;
    } catch (e) {
      // The page's own meta refresh may cut in on ours: that is a load like any other.
      if (!/interrupted|ERR_ABORTED/i.test(String(e))) throw e;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what} (${selector}) on the status page`);
    await sleep(250);
  }
}

const verify = (r: { body: string; headers: Record<string, string> }) => new Webhook(webhookSecret).verify(r.body, r.headers) as any;
const refundCalls = (shiftId: string) => fakes.sideshift.refundAddressCalls.filter((c) => c.shiftId === shiftId);

describe.runIf(once)("a hold on the status page, with JavaScript off", () => {
  it("shows the action, refuses an address of another chain beside its field, takes a right one, then the refund", async () => {
    // The order, through the hosted API, scripted to go on hold (review) after its deposit, without a refund address.
    const payout = addressFor("eth");
    fakes.sideshift.script(payout, ["waiting", "pending", "processing", { status: "review", issue: "Needs review" }]);
    const made = await hosted("/orders", { body: { r: resellerId, from: "btc", to: "eth", amount: "0.1", address: payout } });
    expect(made.status, made.text).toBe(201);
    const token = secret(made.body.token as string);
    const id = made.body.order.id as string;
    const statusPath = made.body.statusPath as string;
    expect(statusPath).toMatch(new RegExp(`^/o/${id}\\?t=`));
    const shift = fakes.sideshift.shiftFor(payout)!;
    expect(shift).toBeTruthy();
    await until(
      () => hosted(`/orders/${id}`, { token }),
      (r) => r.body?.requiredAction === "provide_refund_address",
      "the hold",
    );

    const page = await context.newPage();
    const requested: string[] = [];
    page.on("request", (r) => requested.push(r.url()));
    const statusUrl = `${server.baseUrl}${statusPath}`;
    const load = await ownLoadsOnly(page, id);

    // The page asks for a refund address, in a box that names the reseller's support.
    const first = await load(statusUrl);
    expect(first?.status()).toBe(200);
    expect(first?.headers()["set-cookie"]).toBeUndefined();
    // (The page is whole once loaded: no script changes it, so what is not there now never comes.)
    expect(await page.getByTestId("brand-name").count(), "the brand's name in the header").toBe(1);
    expect(await page.getByTestId("brand-name").textContent()).toContain(BRAND);
    expect(await page.locator('[data-testid="order-panel"]').getAttribute("data-status")).toBe("exchanging");
    // Not final: it reloads itself without JavaScript.
    expect(await page.content()).toMatch(/<meta http-equiv="refresh" content="([5-9]|[12][0-9]|30)">/);
    const box = page.locator('[data-testid="required-action"]');
    expect(await box.count(), "the required-action box").toBe(1);
    expect(await box.getAttribute("data-action")).toBe("provide_refund_address");
    expect(await box.getByTestId("support-contact").count(), "the support contact in the box").toBe(1);
    expect(await box.getByTestId("support-contact").getAttribute("href")).toBe(`mailto:${SUPPORT}`);
    const form = box.locator('[data-testid="refund-address-form"]');
    expect(await form.count(), "the refund address form in the box").toBe(1);
    // The field, found by its label (the user's way to it), is the one the form posts as refundAddress.
    const field = form.getByRole("textbox", { name: /Refund address/ });
    expect(await field.count(), "one textbox labelled Refund address").toBe(1);
    expect(await field.getAttribute("name")).toBe("refundAddress");
    // Bitcoin has no extra id (memo, tag): no field for one.
    expect(await form.locator('[name="refundExtraId"]').count()).toBe(0);

    // The page asking for the address, branded, passes axe in every language with JavaScript on
    // and off (off: its scripts refused, so axe, which runs in the page, checks the server's HTML).
    for (const js of [true, false]) {
      const ctx = await browser.newContext({ viewport: { width: 390, height: 800 } });
      if (!js) await ctx.route(/\/_next\/static\/.*\.js(\?.*)?$/, (r) => r.abort());
      const p = await ctx.newPage();
      for (const locale of LOCALES) {
        const label = `the action on the status page, ${locale}, JavaScript ${js ? "on" : "off"}`;
        await p.goto(`${statusUrl}&lang=${locale}`);
        await p.locator('[data-testid="required-action"][data-action="provide_refund_address"]').waitFor({ timeout: HANG_MS });
        expect(await p.locator("html").getAttribute("lang"), label).toBe(locale);
        const r = await new AxeBuilder({ page: p }).analyze();
        const bad = r.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
        expect(
          bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
          label,
        ).toEqual([]);
      }
      await ctx.close();
    }

    // An address of another chain: refused beside the field, the typed value kept, SideShift never asked.
    const wrong = addressFor("eth");
    await field.fill(wrong);
    await form.getByTestId("refund-address-submit").click();
    // (Absent before the submit: its appearance is the new page.)
    const error = page.getByTestId("refund-address-error");
    await error.waitFor({ timeout: HANG_MS });
    expect(await error.textContent()).toContain("not a valid");
    const again = page.locator('[data-testid="refund-address-form"] input[name="refundAddress"]');
    expect(await again.inputValue()).toBe(wrong);
    expect(await page.locator('[data-testid="required-action"]').getAttribute("data-action")).toBe("provide_refund_address");
    expect(refundCalls(shift.id)).toEqual([]);
    expect((await hosted(`/orders/${id}`, { token })).body).toMatchObject({
      refundAddress: null,
      requiredAction: "provide_refund_address",
    });

    // A Bitcoin address: SideShift receives exactly it, and the page says the review goes on.
    const refundAddress = addressFor("btc");
    await again.fill(refundAddress);
    await page.locator('[data-testid="refund-address-form"] [data-testid="refund-address-submit"]').click();
    const waiting = page.locator('[data-testid="required-action"][data-action="wait_for_review"]');
    await waiting.waitFor({ timeout: HANG_MS });
    expect(await waiting.getByTestId("support-contact").count(), "the support contact in the box").toBe(1);
    expect(await waiting.getByTestId("support-contact").getAttribute("href")).toBe(`mailto:${SUPPORT}`);
    expect(await page.locator('[data-testid="refund-address-form"]').count()).toBe(0);
    const shown = page.locator('[data-testid="field-refund-address"]');
    if ((await shown.count()) > 0) expect(await shown.first().textContent()).toContain(refundAddress);
    else expect(await page.locator("body").textContent()).toContain(refundAddress);
    expect(refundCalls(shift.id)).toEqual([
      { shiftId: shift.id, address: refundAddress, memo: undefined, status: "review", answered: 201 },
    ]);
    expect((await hosted(`/orders/${id}`, { token })).body).toMatchObject({ refundAddress, requiredAction: "wait_for_review" });

    // SideShift refunds to it: the page, opened again (as its meta refresh would), shows the order
    // failed with the refund's hash, and asks nothing any more.
    fakes.sideshift.refund(shift.id);
    await openUntil(load, statusUrl, '[data-testid="order-panel"][data-status="failed"]', "the refund", page);
    expect(await page.locator("body").textContent()).toContain(`ss-refund-${shift.id}`);
    expect(await page.locator('[data-testid="required-action"]').count()).toBe(0);
    expect(await page.locator('[data-testid="refund-address-form"]').count()).toBe(0);
    // Final: no more reloads.
    expect(await page.content()).not.toMatch(/http-equiv="refresh"/);
    expect((await hosted(`/orders/${id}`, { token })).body).toMatchObject({
      status: "failed",
      failureReason: "refunded",
      refundAddress,
      refund: { hash: `ss-refund-${shift.id}` },
      requiredAction: null,
    });

    // The reseller was told, signed, of both actions: the address asked for, then the review.
    const hooks = await until(
      async () => receiver.events(id, "order.action_required"),
      (h) => h.length >= 2,
      "the webhooks",
    );
    const data = hooks.map((h) => verify(h).data);
    expect(data.map((d) => d.requiredAction).sort()).toEqual(["provide_refund_address", "wait_for_review"]);
    for (const d of data) expect(d).toMatchObject({ orderId: id, order: { id } });

    // Everything the page loaded came from the app itself; the address went in a POST body, never
    // in a URL; and nothing was kept in the browser.
    const origin = new URL(server.baseUrl).origin;
    const elsewhere = requested.filter((u) => !u.startsWith("data:") && new URL(u).origin !== origin);
    expect(elsewhere).toEqual([]);
    expect(requested.filter((u) => u.includes(refundAddress) || u.includes(wrong))).toEqual([]);
    expect(await context.cookies()).toEqual([]);
    await page.close();
  });
});
