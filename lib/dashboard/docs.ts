import "server-only";
import fs from "node:fs";
import path from "node:path";
import { getAppOrigin } from "@/lib/auth/origin";
import { getConfig } from "@/lib/config";
import { generateAddress, getCurrency } from "@/lib/currencies";
import { seededBytes } from "@/lib/ids";
import { projectRoot } from "@/lib/root";
import type { DocsView } from "./types";

export interface DocsData extends DocsView {
  example: { from: string; to: string; amount: string; address: string; refundAddress: string };
  /** docs/examples/verify-webhook.ts, as the page shows it (a test runs the same file). */
  webhookExample: string;
}

let webhookExample: string | null = null;
function readWebhookExample(): string {
  webhookExample ??= fs.readFileSync(path.join(projectRoot(), "docs/examples/verify-webhook.ts"), "utf8");
  return webhookExample;
}

export function getDocsData(): DocsData {
  const cfg = getConfig();
  const origin = getAppOrigin().origin;
  const from = "btc";
  const to = "xmr";
  let address = "<the customer's XMR address>";
  let refundAddress = "<the customer's BTC address for refunds>";
  // In the sandbox nothing is real, so the example can carry valid addresses and run as is.
  // On a live engine the placeholders stay: a random valid address would lose real funds.
  if (cfg.sandboxEnabled) {
    const f = getCurrency(from);
    const t = getCurrency(to);
    try {
      if (t) address = generateAddress(t, seededBytes("docs-to")).address;
      if (f) refundAddress = generateAddress(f, seededBytes("docs-refund")).address;
    } catch {
      // keep the placeholders
    }
  }
  return {
    baseUrl: `${origin}/api/v1`,
    openApiUrl: `${origin}/api/v1/openapi.json`,
    sandbox: cfg.sandboxEnabled,
    example: { from, to, amount: "0.05", address, refundAddress },
    webhookExample: readWebhookExample(),
  };
}
