import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "@/lib/app/create-app";
import { createDb, dbPoolStats } from "@/lib/db/client";
import { authenticateApiKey } from "@/lib/keys/api-keys";
import { post } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { getResellerByWallet } from "@/lib/resellers/resellers";
import { runCli, runCliProcess } from "../support/cli";
import { createDatabase, type TestDatabase } from "../support/server";

let db: TestDatabase | null = null;

async function cli(...args: string[]) {
  db ??= await createDatabase("sqlite");
  return runCli(db.url, args);
}

afterAll(() => db?.drop());

describe("operator CLI", () => {
  const wallet = "0x52908400098527886E0F7030069857D2E4169EE7";

  it("creates a reseller, issues a key printed once, lists, revokes, shows balances", async () => {
    expect((await cli("reseller:create", wallet, "--markup", "150")).out).toMatch(/markup 150 bps/);
    const issued = await cli("key:create", wallet, "--name", "ci");
    const key = issued.out.match(/rsk_live_[1-9A-HJ-NP-Za-km-z]+/)![0];
    const conn = createDb(db!.url);
    expect((await authenticateApiKey(conn, key)).markupBps).toBe(150);
    const list = await cli("key:list", wallet.toLowerCase());
    expect(list.out).toContain(key.slice(0, 17));
    expect(list.out).not.toContain(key);
    expect((await cli("balances", wallet)).out).toMatch(/no profit yet/);
    expect((await cli("markup:set", wallet, "200")).out).toMatch(/200 bps/);
    expect((await cli("key:revoke", key.slice(0, 17))).out).toMatch(/revoked/);
    await expect(authenticateApiKey(conn, key)).rejects.toMatchObject({ code: "INVALID_API_KEY" });
    await conn.$disconnect();
  });

  it("ledger:check passes on a consistent ledger and prints the first violation of a broken one", async () => {
    await cli("reseller:create", wallet);
    const conn = createDb(db!.url);
    const r = (await getResellerByWallet(conn, { walletAddress: wallet }))!;
    await conn.$transaction((tx) =>
      post(tx, [{ resellerId: r.id, currency: "xmr", bucket: "available", kind: "order_profit_settle", amount: new D("0.75") }]),
    );
    expect((await cli("balances", wallet)).out).toMatch(/xmr\s+pending\s+0\s+available\s+0\.75\s+reserved\s+0/);
    // No checkpoint yet: the first check reads everything, and writes one (the credit a fourth time: the channel rollup's).
    expect(await cli("ledger:check")).toMatchObject({
      code: 0,
      out: "full check: read 4 entries, 1 lines, 1 journals, 0 orders, 0 withdrawals, 1 balances\nledger ok: every invariant holds; checkpoint 1 written\n",
    });
    // A balance changed behind the ledger's back: the incremental check (the default) re-checks every balance.
    await conn.balance.update({ where: { resellerId_currency: { resellerId: r.id, currency: "xmr" } }, data: { available: "1.75" } });
    const broken = await cli("ledger:check");
    expect(broken.code).toBe(1);
    expect(broken.out).toMatch(/^incremental check since checkpoint 1 \(entry 1, line 1\): read 0 entries, 0 lines/);
    expect(broken.err.split("\n")[0]).toBe(
      `ledger VIOLATION (each balance equals the sum of its entries and is not negative): balance ${r.id}/xmr available is 1.75 but its entries sum to 0.75`,
    );
    await conn.$disconnect();
  });

  it("revokes a reseller: its keys stop, its session version moves on, and it can be restored", async () => {
    const w = "0x000000000000000000000000000000000000beef";
    await cli("reseller:create", w);
    const key = (await cli("key:create", w)).out.match(/rsk_live_[1-9A-HJ-NP-Za-km-z]+/)![0];
    const conn = createDb(db!.url);
    const before = (await conn.reseller.findUnique({ where: { walletAddress: w } }))!;
    const r = await cli("reseller:revoke", w);
    expect(r.out).toMatch(/sessions ended, 1 API key\(s\) revoked/);
    const after = (await conn.reseller.findUnique({ where: { walletAddress: w } }))!;
    expect(after.revokedAt).not.toBeNull();
    expect(after.sessionVersion).toBe(before.sessionVersion + 1);
    await expect(authenticateApiKey(conn, key)).rejects.toMatchObject({ code: "INVALID_API_KEY" });
    expect((await cli("reseller:show", w)).out).toMatch(/REVOKED/);
    expect((await cli("sessions:end", w)).out).toMatch(/ended every dashboard session/);
    expect((await conn.reseller.findUnique({ where: { walletAddress: w } }))!.sessionVersion).toBe(before.sessionVersion + 2);
    await cli("reseller:restore", w);
    expect((await conn.reseller.findUnique({ where: { walletAddress: w } }))!.revokedAt).toBeNull();
    await expect(authenticateApiKey(conn, key)).rejects.toMatchObject({ code: "INVALID_API_KEY" });
    await conn.$disconnect();
  });

  it("fails with a message and a non-zero exit on bad input", async () => {
    const r = await cli("markup:set", wallet, "5000");
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/from 0 to 1000/);
    expect((await cli("key:create", "0x0000000000000000000000000000000000000009")).err).toMatch(/no reseller/);
    expect((await cli("nope")).code).toBe(2);
  });

  it("a refused reseller:create changes nothing: no reseller, no key for it (issue 48)", async () => {
    const fresh = "0x4444444444444444444444444444444444444444";
    const r = await cli("reseller:create", fresh, "--markup", "5000");
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/from 0 to 1000/);
    expect((await cli("reseller:show", fresh)).err).toMatch(/no reseller/);
    expect((await cli("key:create", fresh)).code).toBe(1);
    // The same command with a markup in range makes it, with that markup, in one go.
    expect((await cli("reseller:create", fresh, "--markup", "300")).out).toMatch(/markup 300 bps/);
  });
});

describe("operator CLI on PostgreSQL", () => {
  // The program itself (dist/cli.mjs in a process of its own) for what only a process shows:
  // it migrates a new database, prints, and exits with its command's code (0, and 2 for an
  // unknown command). Each process start loads the whole bundle and Prisma's engine again, so
  // the commands after the migration run in process, as the other tests' do.
  it("migrates and answers, as a program", async () => {
    const pg = await createDatabase("postgres");
    try {
      expect(await runCliProcess(pg.url, ["ledger:check", "--full"])).toMatchObject({
        code: 0,
        out: "full check: read 0 entries, 0 lines, 0 journals, 0 orders, 0 withdrawals, 0 balances\nledger ok: every invariant holds; checkpoint 1 written\n",
      });
      expect((await runCli(pg.url, ["ledger:check"])).out).toMatch(
        /^incremental check since checkpoint 1 \(entry 0, line 0\).*\nledger ok: every invariant holds; checkpoint 2 written\n$/,
      );
      expect((await runCli(pg.url, ["reseller:create", "0x000000000000000000000000000000000000cafe"])).out).toMatch(/markup 0 bps/);
      expect((await runCliProcess(pg.url, ["nope"])).code).toBe(2);
    } finally {
      await pg.drop();
    }
  });

  it("leaves no pool or timer open once a command is done, so the process exits at once", async () => {
    // The cause, not the clock: closing only the Prisma client left the process's pg pool open
    // (its sockets, and the idle timers that kept every command alive 10 s after it finished).
    const pg = await createDatabase("postgres");
    // Timers alive (an idle pool connection holds one until its idle timeout).
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    const app = createApp({ settings: { ...process.env, DATABASE_URL: pg.url } });
    try {
      const before = timers();
      expect((await app.cli(["reseller:create", "0x000000000000000000000000000000000000cafe"])).out).toMatch(/markup 0 bps/);
      const check = await app.cli(["ledger:check"]);
      expect(check.code).toBe(0);
      expect(check.out).toMatch(/\nledger ok: every invariant holds/);
      // The app's pool is gone, and no timer was added (one that was already there may end meanwhile).
      expect(app.run(() => dbPoolStats())).toBeNull();
      expect(timers()).toBeLessThanOrEqual(before);
    } finally {
      await app.close();
      await pg.drop();
    }
  });
});
