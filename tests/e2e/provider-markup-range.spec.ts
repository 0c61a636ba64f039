import { expect, test } from "@playwright/test";
import { FakeFixedFloat } from "../support/fake-providers/fixedfloat";
import { FakeSideShift } from "../support/fake-providers/sideshift";
import { createDatabase, type RunningServer, startServer, type TestDatabase } from "../support/server";
import { newWallet, signIn } from "./helpers";

// Issue 31: with ENGINE=providers the Settings page shows the range of markups the enabled
// providers route (SideShift 200 bps, FixedFloat FIXEDFLOAT_MAX_AFFTAX_BPS=100, fee 25: 0 to
// 175), and explains a markup above it before anything is saved. Its own server (the suite's
// runs the simulated engine), against the fake providers.

let ss: FakeSideShift;
let ff: FakeFixedFloat;
let db: TestDatabase;
let server: RunningServer;

test.beforeAll(async () => {
  ss = await new FakeSideShift().start();
  ff = await new FakeFixedFloat().start();
  db = await createDatabase("sqlite");
  server = await startServer({
    databaseUrl: db.url,
    env: {
      ENGINE: "providers",
      SIDESHIFT_ENABLED: "true",
      SIDESHIFT_SECRET: ss.secret,
      SIDESHIFT_AFFILIATE_ID: ss.affiliateId,
      SIDESHIFT_API_URL: ss.baseUrl,
      FIXEDFLOAT_ENABLED: "true",
      FIXEDFLOAT_API_KEY: ff.apiKey,
      FIXEDFLOAT_API_SECRET: ff.apiSecret,
      FIXEDFLOAT_API_URL: ff.baseUrl,
      FIXEDFLOAT_MAX_AFFTAX_BPS: "100",
      PLATFORM_FEE_BPS: "25",
      SERVE_DASHBOARD: "true",
    },
  });
});

test.afterAll(async () => {
  await server?.stop();
  await Promise.all([ss?.kill(), ff?.kill()]);
  await db?.drop();
});

test("the Settings page shows the markup range the providers route and explains one above it", async ({ page }) => {
  const origin = `http://localhost:${server.port}`; // APP_URL: SIWE names it
  const wallet = newWallet();
  await signIn(page, wallet, { base: origin });
  await page.goto(`${origin}/dashboard/settings`);

  const range = page.getByTestId("markup-range");
  await expect(range).toContainText("Markups the exchange providers can route now: 0 to 175 bps (1.75%)");
  await expect(range).toContainText("SideShift up to 175 bps, FixedFloat up to 75 bps");

  // Between the two caps: only SideShift is left in the race, and the page says so.
  await page.getByLabel("Markup in basis points").fill("150");
  await expect(range).toContainText("At 150 bps only SideShift can take your orders");

  // Above the range: explained, and nothing can be saved.
  await page.getByLabel("Markup in basis points").fill("300");
  await expect(page.getByText("The highest markup the exchange providers can route is 175 bps (1.75%)")).toBeVisible();
  await expect(page.getByRole("button", { name: "Save markup" })).toBeDisabled();
});
