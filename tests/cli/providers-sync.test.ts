import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getMapping } from "@/lib/providers/mapping";
import { runCli } from "../support/cli";
import { FakeFixedFloat } from "../support/fake-providers/fixedfloat";
import { FakeSideShift } from "../support/fake-providers/sideshift";
import { migratedDatabase, type TestDatabase } from "../support/server";

// `npm run cli -- providers:sync` (issue 31): the compiled CLI against fake providers. Per
// provider with credentials: how many mapped currencies it offers now, the mapped ones it does
// not list (exit 1: the mapping file needs fixing), registry currencies it lists that the
// mapping lacks (with the id to add), and a provider that cannot be reached (exit 1, the others
// still reported). A provider without credentials is not asked.

let ss: FakeSideShift;
let ff: FakeFixedFloat;
let db: TestDatabase;

beforeAll(async () => {
  ss = await new FakeSideShift().start();
  ff = await new FakeFixedFloat().start();
  db = await migratedDatabase("sqlite");
});

afterAll(async () => {
  await Promise.all([ss.kill(), ff.kill()]);
  await db.drop();
});

const env = () => ({
  SIDESHIFT_SECRET: ss.secret,
  SIDESHIFT_AFFILIATE_ID: ss.affiliateId,
  SIDESHIFT_API_URL: ss.baseUrl,
  FIXEDFLOAT_API_KEY: ff.apiKey,
  FIXEDFLOAT_API_SECRET: ff.apiSecret,
  FIXEDFLOAT_API_URL: ff.baseUrl,
  CHANGENOW_API_KEY: "",
  LOG_LEVEL: "silent",
});

describe("providers:sync", () => {
  it("what each provider offers now, and the mapped currencies it does not list (exit 1: fix the mapping)", async () => {
    // SideShift lists exactly btc and eth (the coins of its one pair); FixedFloat the same.
    ss.pairs.clear();
    ss.setPair("btc-bitcoin", "eth-ethereum", { rate: "20", min: "0.001", max: "1" });
    const btc = getMapping("fixedfloat").assets.get("btc")!;
    const eth = getMapping("fixedfloat").assets.get("eth")!;
    ff.setPair(btc.code, eth.code, { rate: "20", min: "0.001", max: "1" });
    const r = await runCli(db.url, ["providers:sync"], env());
    expect(r.out).toMatch(/^sideshift \(mapping v\d+\): 2 offered now$/m);
    expect(r.out).toMatch(/^fixedfloat \(mapping v\d+\): 2 offered now$/m);
    expect(r.out).not.toMatch(/changenow/);
    // Every other mapped currency is not listed by these fakes: reported, and the exit code says so.
    expect(r.out).toMatch(/^ {2}mapped but not listed \(fix the mapping file\): .*\bltc\b/m);
    expect(r.code).toBe(1);
  });

  it("a registry currency the provider lists and the mapping lacks is named with the id to add", async () => {
    expect(getMapping("sideshift").assets.has("dcr")).toBe(false);
    ss.setPair("dcr-decred", "btc-bitcoin", { rate: "0.0002", min: "1", max: "100" });
    const r = await runCli(db.url, ["providers:sync"], env());
    expect(r.out).toContain('not mapped, the provider lists dcr as: {"coin":"dcr","network":"decred"}');
  });

  it("a provider that cannot be reached: named on stderr, exit 1, the others still reported", async () => {
    await ff.kill();
    try {
      const r = await runCli(db.url, ["providers:sync"], env());
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/^fixedfloat: .*unreachable/m);
      expect(r.out).toMatch(/^sideshift \(mapping v\d+\): \d+ offered now$/m);
    } finally {
      await ff.start();
    }
  });

  it("no provider with credentials: says so", async () => {
    const r = await runCli(db.url, ["providers:sync"], {
      LOG_LEVEL: "silent",
      SIDESHIFT_SECRET: "",
      FIXEDFLOAT_API_KEY: "",
      CHANGENOW_API_KEY: "",
    });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/no provider has credentials set/);
  });
});

describe("upstream:orphans", () => {
  it("lists the intents settled as abandoned or unknown, not the others", async () => {
    const { createDb } = await import("@/lib/db/client");
    const { migrate } = await import("@/lib/db/migrate");
    await migrate(db.url);
    const conn = createDb(db.url);
    try {
      expect((await runCli(db.url, ["upstream:orphans"], { LOG_LEVEL: "silent" })).out).toMatch(/no upstream exchange without an order/);
      const at = new Date("2026-11-25T06:00:00Z");
      await conn.upstreamIntent.createMany({
        data: [
          { id: "x1", orderId: "o1", provider: "sideshift", externalId: "o1", upstreamId: "shift-1", outcome: "abandoned", createdAt: at },
          { id: "x2", orderId: "o2", provider: "sideshift", externalId: "o2", upstreamId: null, outcome: "unknown", createdAt: at },
          { id: "x3", orderId: "o3", provider: "sideshift", externalId: "o3", upstreamId: "shift-3", outcome: "adopted", createdAt: at },
          { id: "x4", orderId: "o4", provider: "fixedfloat", externalId: null, upstreamId: "ff-4", outcome: "committed", createdAt: at },
        ],
      });
      const r = await runCli(db.url, ["upstream:orphans"], { LOG_LEVEL: "silent" });
      expect(r.code).toBe(0);
      expect(r.out.trim().split("\n").sort()).toEqual([
        "abandoned  sideshift  exchange shift-1  order o1  at 2026-11-25T06:00:00.000Z",
        "unknown  sideshift  exchange id unknown, external id o2  order o2  at 2026-11-25T06:00:00.000Z",
      ]);
    } finally {
      await conn.$disconnect();
    }
  });
});
