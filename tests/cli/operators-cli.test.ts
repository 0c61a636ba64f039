import { afterAll, describe, expect, it } from "vitest";
import { createDb } from "@/lib/db/client";
import { runCli } from "../support/cli";
import { createDatabase, type TestDatabase } from "../support/server";

// The console's operators from the CLI (issue 52, point 1: "the first admin comes from a setting
// or the CLI"): operator:add, operator:list and operator:remove, each in the audit log as "cli";
// the last admin stays; a setting's first admin is made at start only while there is none.

let db: TestDatabase | null = null;
async function cli(...args: string[]) {
  db ??= await createDatabase("sqlite");
  return runCli(db.url, args);
}
afterAll(() => db?.drop());

const admin = "0x52908400098527886E0F7030069857D2E4169EE7";
const support = "0x8617E340B3D01FA5F11F306F4090FD50E238070D";

describe("operator CLI: the console's operators", () => {
  it("adds, lists, changes a role, removes, and records each step as the CLI", async () => {
    expect((await cli("operator:list")).out).toMatch(/no operators/);
    expect((await cli("operator:add", admin, "admin")).out).toMatch(/role admin/);
    expect((await cli("operator:add", support, "viewer")).out).toMatch(/role viewer/);
    expect((await cli("operator:add", support, "support")).out).toMatch(/role support/);
    const list = (await cli("operator:list")).out.trim().split("\n");
    expect(
      list.map((l) =>
        l
          .split(/\s+/)
          .slice(3)
          .join(" ")
          .replace(/\s+since.*/, ""),
      ),
    ).toEqual([`${admin.toLowerCase()} role admin`, `${support.toLowerCase()} role support`]);
    expect((await cli("operator:remove", support)).out).toMatch(/removed operator/);
    expect((await cli("operator:list")).out).not.toContain(support.toLowerCase());
    const conn = createDb(db!.url);
    const audit = await conn.auditEvent.findMany({ orderBy: { id: "asc" } });
    expect(audit.map((a) => [a.actor, a.action])).toEqual([
      ["cli", "operator.add"],
      ["cli", "operator.add"],
      ["cli", "operator.role"],
      ["cli", "operator.remove"],
    ]);
    await conn.$disconnect();
  });

  it("refuses to remove the last admin, a bad role and an unknown wallet", async () => {
    const last = await cli("operator:remove", admin);
    expect(last.code).toBe(1);
    expect(last.err).toMatch(/at least one admin/);
    const role = await cli("operator:add", support, "root");
    expect([role.code, role.err]).toEqual([1, expect.stringMatching(/role: expected admin, support, finance or viewer/)]);
    expect((await cli("operator:remove", "0x0000000000000000000000000000000000000001")).err).toMatch(/no active operator/);
  });
});
