import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { PNG_8x6, pngOfSize } from "../support/images";
import { newWallet, signIn } from "./helpers";

// The brand on the dashboard's Widgets page (docs/widgets.md, Brand), in Chromium against the
// production build: the reseller types a name, colour, support contact and terms link, picks a
// logo file, sees them in the live preview before saving, saves, and after a reload sees the
// saved logo loaded from the app's own logo route. Refusals show beside their fields.

/** axe-core finds no serious or critical violation in the Brand section. */
async function brandSectionAccessible(page: Page, what: string) {
  const r = await new AxeBuilder({ page }).include('[data-testid="brand-section"]').analyze();
  const bad = r.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(
    bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
    what,
  ).toEqual([]);
}

test("set the brand with a logo on the Widgets page and see it in the preview", async ({ page }) => {
  await signIn(page, newWallet());
  await page.goto("/dashboard/widgets");
  const section = page.getByTestId("brand-section");
  await expect(section.getByRole("heading", { name: "Brand" })).toBeVisible();
  const preview = section.getByTestId("brand-preview");

  await section.getByTestId("brand-name-input").fill("Acme Exchange");
  await section.getByTestId("brand-accent-input").fill("#f59e0b");
  await section.getByTestId("brand-support-input").fill("@acme_support");
  await section.getByTestId("brand-terms-input").fill("https://acme.example/terms");
  // A file over 64 KB is refused before it is read or sent.
  await section.getByTestId("brand-logo-input").setInputFiles({ name: "big.png", mimeType: "image/png", buffer: pngOfSize(70 * 1024) });
  await expect(section.getByTestId("brand-error-logo")).toHaveText("The logo is larger than 64 KB.");
  await section.getByTestId("brand-logo-input").setInputFiles({ name: "logo.png", mimeType: "image/png", buffer: PNG_8x6 });
  await expect(section.getByTestId("brand-error-logo")).toHaveCount(0);
  await expect(section.getByTestId("brand-logo-state")).toContainText("logo.png: 8×6 px");

  // The live preview, before saving: the new logo (from the file) and the name.
  const logo = preview.getByTestId("brand-logo");
  await expect(logo).toHaveAttribute("src", /^blob:/);
  await expect(preview.getByTestId("brand-name")).toHaveText("Acme Exchange");
  await expect(preview.getByTestId("brand-preview-accent")).toHaveCSS("background-color", "rgb(245, 158, 11)");
  await expect(preview.getByTestId("brand-support")).toHaveAttribute("href", "https://t.me/acme_support");
  await expect(preview.getByTestId("brand-terms")).toHaveAttribute("rel", "noopener noreferrer");

  await brandSectionAccessible(page, "with a new logo in the preview");
  await section.getByTestId("brand-save").click();
  await expect(section.getByText("Saved.")).toBeVisible();

  // After a reload: the saved logo, as the hosted pages will load it, from the app itself.
  await page.reload();
  const saved = page.getByTestId("brand-preview").getByTestId("brand-logo");
  await expect(saved).toHaveAttribute("src", /^\/api\/hosted\/brand\/[1-9A-HJ-NP-Za-km-z]+\/logo\?v=[0-9a-f]{64}$/);
  await expect.poll(() => saved.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(8);
  await expect(page.getByTestId("brand-preview").getByTestId("brand-name")).toHaveText("Acme Exchange");
  await expect(page.getByTestId("brand-accent-input")).toHaveValue("#f59e0b");
  await expect(page.getByTestId("brand-logo-state")).toContainText("Saved: 8×6 px");

  // A refused field: its message beside it; nothing saved.
  await page.getByTestId("brand-support-input").fill("javascript:alert(1)");
  await page.getByTestId("brand-save").click();
  await expect(page.getByTestId("brand-error-support")).toContainText("The support contact");
  await expect(page.getByTestId("brand-support-input")).toHaveAttribute("aria-invalid", "true");
  await brandSectionAccessible(page, "with a refused field");
  await page.reload();
  await expect(page.getByTestId("brand-support-input")).toHaveValue("@acme_support");

  // Removing the logo.
  await page.getByTestId("brand-logo-remove").click();
  await expect(page.getByTestId("brand-preview").getByTestId("brand-logo")).toHaveCount(0);
  await page.getByTestId("brand-save").click();
  await expect(page.getByText("Saved.")).toBeVisible();
  await page.reload();
  await expect(page.getByTestId("brand-logo-state")).toHaveText("No logo.");
});
