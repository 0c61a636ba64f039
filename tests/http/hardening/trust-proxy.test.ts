import { describe, expect, inject, it } from "vitest";
import { newIp } from "../../support/api";
import { startApp } from "../../support/app";

// Issue 13, item 2: behind TRUST_PROXY the client IP is the X-Forwarded-For entry the
// operator's own proxies appended (the rightmost ones), never the leftmost, which the client
// writes itself. A varying first entry must not buy a fresh rate-limit budget.

async function statuses(baseUrl: string, xffs: string[]) {
  const out: number[] = [];
  for (const xff of xffs) out.push((await fetch(`${baseUrl}/api/v1/currencies`, { headers: { "x-forwarded-for": xff } })).status);
  return out;
}

const spoofed = (real: string, n: number, tail = "") =>
  Array.from({ length: n }, (_, i) => `198.51.100.${i + 1}, ${real}${tail ? `, ${tail}` : ""}`);

describe("TRUST_PROXY", () => {
  it("as a hop count: the entry one proxy appended is the client, whatever the client wrote before it", async () => {
    const s = await startApp({
      databaseUrl: inject("databaseUrl"),
      env: { TRUST_PROXY: "1", RATE_LIMIT_PUBLIC_PER_MINUTE: "5", SERVE_DASHBOARD: "false" },
    });
    try {
      const real = newIp();
      expect(await statuses(s.baseUrl, spoofed(real, 8))).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
      // Another real client behind the same proxy keeps its own budget.
      expect(await statuses(s.baseUrl, [newIp()])).toEqual([200]);
    } finally {
      await s.stop();
    }
  });

  it("as a list of proxy addresses and CIDRs: the first untrusted entry from the right is the client", async () => {
    const s = await startApp({
      databaseUrl: inject("databaseUrl"),
      env: { TRUST_PROXY: "127.0.0.1, 10.0.0.0/8", RATE_LIMIT_PUBLIC_PER_MINUTE: "5", SERVE_DASHBOARD: "false" },
    });
    try {
      const real = "203.0.113.77";
      // Two proxies of the operator: 10.1.2.3 appended `real`, the socket peer (127.0.0.1) appended 10.1.2.3.
      expect(await statuses(s.baseUrl, spoofed(real, 7, "10.1.2.3"))).toEqual([200, 200, 200, 200, 200, 429, 429]);
      expect(await statuses(s.baseUrl, ["203.0.113.78, 10.9.9.9"])).toEqual([200]);
    } finally {
      await s.stop();
    }
  });

  it("is refused at start when it is neither a hop count, a boolean nor a list of addresses", async () => {
    await expect(startApp({ databaseUrl: inject("databaseUrl"), env: { TRUST_PROXY: "nginx", SERVE_DASHBOARD: "false" } })).rejects.toThrow(
      /TRUST_PROXY/,
    );
  });
});
