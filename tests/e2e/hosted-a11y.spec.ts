import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { LOCALES } from "../../lib/i18n/locales";
import { apiContext, createWidgetInUi, ethAddress, finishHostedOrder, hostedApiOrder, newWallet, resellerIdOf, signIn } from "./helpers";

// axe-core over every page of the end user's path (the exchange page, the widget, the status
// page of a waiting and of a finished order), with JavaScript on and off, in every language of
// lib/i18n (a new language is covered as soon as it is listed): no serious or critical
// violation, <html lang> the page's language, and no sideways scroll at 390 px. "Off": the
// page's scripts are refused, so what axe checks is the server's HTML as a browser without
// JavaScript shows it. One test per
// language and JavaScript setting, two at a time (each worker makes its reseller, widget and
// orders once).

test.describe.configure({ mode: "parallel" });

let paths: { what: string; path: string; testId: string }[] = [];

test.beforeAll(async ({ browser, baseURL }) => {
  const dash = await browser.newContext({ baseURL });
  const dashPage = await dash.newPage();
  await signIn(dashPage, newWallet());
  const resellerId = await resellerIdOf(dashPage);
  const widgetId = await createWidgetInUi(dashPage, { name: "A11y widget", markup: 100, origins: [] });
  await dash.close();
  const api = await apiContext(baseURL!);
  const waiting = await hostedApiOrder(api, resellerId, ethAddress());
  const finished = await hostedApiOrder(api, resellerId, ethAddress());
  await finishHostedOrder(api, finished.order.id, finished.token);
  await api.dispose();
  paths = [
    { what: "exchange page", path: `/x/${resellerId}?from=btc&to=eth&amount=0.1`, testId: "exchange-form" },
    { what: "widget", path: `/w/${widgetId}?theme=dark`, testId: "exchange-form" },
    { what: "status, waiting", path: waiting.statusPath, testId: "order-panel" },
    { what: "status, finished", path: finished.statusPath, testId: "order-panel" },
  ];
});

for (const js of [true, false])
  for (const locale of LOCALES)
    test(`the end user's pages in ${locale}, JavaScript ${js ? "on" : "off"}: no serious or critical axe violation`, async ({
      browser,
    }) => {
      // axe runs in the page, so the page's own JavaScript is off by refusing its scripts (the
      // server-rendered page, never hydrated), not with javaScriptEnabled: false, under which axe cannot run.
      const ctx = await browser.newContext({ viewport: { width: 390, height: 800 } });
      if (!js) await ctx.route(/\/_next\/static\/.*\.js(\?.*)?$/, (r) => r.abort());
      const page = await ctx.newPage();
      for (const { what, path, testId } of paths) {
        const label = `${what}, ${locale}, JavaScript ${js ? "on" : "off"}`;
        await page.goto(`${path}${path.includes("?") ? "&" : "?"}lang=${locale}`);
        await expect(page.getByTestId(testId), label).toBeVisible();
        expect(await page.locator("html").getAttribute("lang"), label).toBe(locale);
        // These pages have no frame (checked), so axe.run in the page (legacy mode) checks what
        // runPartial and finishRun would, with the same rules, without the blank page that
        // finishRun opens and loads axe into for every check.
        await expect(page.locator("iframe"), label).toHaveCount(0);
        const r = await new AxeBuilder({ page }).setLegacyMode().analyze();
        const bad = r.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
        expect(
          bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
          label,
        ).toEqual([]);
        expect(await page.evaluate(() => document.documentElement.scrollWidth), `${label} scrolls sideways`).toBeLessThanOrEqual(390);
      }
      await ctx.close();
    });
