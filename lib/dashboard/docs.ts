import "server-only";
import crypto from "node:crypto";
import { getAppOrigin } from "@/lib/auth/origin";
import { getConfig } from "@/lib/config";
import { generateAddress, getCurrency } from "@/lib/currencies";
import type { DocsView } from "./types";

export interface DocsData extends DocsView {
  example: { from: string; to: string; amount: string; address: string; refundAddress: string };
}

/** Deterministic bytes, so the example addresses stay the same from one visit to the next. */
function seeded(seed: string) {
  let counter = 0;
  return (n: number) => {
    const out = new Uint8Array(n);
    for (let off = 0; off < n; off += 32) {
      const block = crypto.createHash("sha256").update(`${seed}:${counter++}`).digest();
      out.set(block.subarray(0, Math.min(32, n - off)), off);
    }
    return out;
  };
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
  if (cfg.SANDBOX) {
    const f = getCurrency(from);
    const t = getCurrency(to);
    try {
      if (t) address = generateAddress(t, seeded("docs-to")).address;
      if (f) refundAddress = generateAddress(f, seeded("docs-refund")).address;
    } catch {
      // keep the placeholders
    }
  }
  return {
    baseUrl: `${origin}/api/v1`,
    openApiUrl: `${origin}/api/v1/openapi.json`,
    sandbox: cfg.SANDBOX,
    example: { from, to, amount: "0.05", address, refundAddress },
  };
}
