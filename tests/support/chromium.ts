// How the tests launch Debian's Chromium (apt-get install -y chromium; never `npx playwright
// install`): playwright.config.ts for the browser specs, and the HTTP tests that drive a page
// themselves. Without the background-networking flags Chromium tries Google's hosts at start,
// which this machine's closed network refuses.
export const CHROMIUM_LAUNCH = {
  executablePath: process.env.E2E_CHROMIUM ?? "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
};
