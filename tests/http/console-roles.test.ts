import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { CONSOLE_ROUTES } from "@/lib/http/console/routes";
import { CLI_ACTOR } from "@/lib/operators/audit";
import { addOperator } from "@/lib/operators/operators";
import { can, OPERATOR_ACTIONS, OPERATOR_ROLES, type OperatorRole } from "@/lib/operators/roles";
import { type RunningApp, startApp } from "../support/app";
import { type ConsoleClient, consoleClient } from "../support/console";
import { migratedDatabase, type TestDatabase } from "../support/server";

// Issue 52, "each role's permissions are tested action by action": every route of the console's
// table (lib/http/console/routes.ts), called by every role, is refused with 403 FORBIDDEN
// exactly when lib/operators/roles.ts says the role may not do it. A route added to the table is
// in this test without a line more; a viewer tries every write. Ids and bodies are nonsense on
// purpose: an allowed call answers its own 4xx (not found, invalid), never 403 and never 500.

const keys: Record<OperatorRole, `0x${string}`> = {
  admin: `0x${"b1".repeat(32)}`,
  support: `0x${"b2".repeat(32)}`,
  finance: `0x${"b3".repeat(32)}`,
  viewer: `0x${"b4".repeat(32)}`,
};

let database: TestDatabase;
let server: RunningApp;
let db: Db;
const clients = {} as Record<OperatorRole, ConsoleClient>;

beforeAll(async () => {
  database = await migratedDatabase(inject("dbKind"));
  server = await startApp({ databaseUrl: database.url });
  db = createDb(database.url);
  for (const role of OPERATOR_ROLES) {
    const account = privateKeyToAccount(keys[role]);
    await addOperator(db, { walletAddress: account.address, role, by: CLI_ACTOR });
    clients[role] = await consoleClient(server.baseUrl, account);
  }
});

afterAll(async () => {
  await db?.$disconnect();
  await server?.stop();
  await database?.drop();
});

const operatorRoutes = CONSOLE_ROUTES.filter((r) => (r.auth ?? "operator") === "operator");
// Sign-out ends the caller's session: run last, so the other calls keep theirs.
const ordered = [
  ...operatorRoutes.filter((r) => r.path !== "/auth/sign-out"),
  ...operatorRoutes.filter((r) => r.path === "/auth/sign-out"),
];
const concrete = (path: string) => path.replace(/:[a-z]+/g, "no-such-thing");

/**
 * The rule the issue states, written out apart from the table: every role reads everything; a
 * viewer changes nothing; support runs orders and resellers; finance runs withdrawals and the
 * treasury; providers and operators are the admin's alone, who may do everything.
 */
function expectedRoles(action: string): OperatorRole[] {
  if (action.endsWith(".read")) return ["admin", "support", "finance", "viewer"];
  const domain = action.split(".")[0];
  if (domain === "orders" || domain === "resellers") return ["admin", "support"];
  if (domain === "withdrawals" || domain === "treasury") return ["admin", "finance"];
  return ["admin"];
}

describe("the console's permissions, role by route", () => {
  it("the table grants each action to exactly the roles the rule names", () => {
    for (const [action, roles] of Object.entries(OPERATOR_ACTIONS)) expect([...roles].sort(), action).toEqual(expectedRoles(action).sort());
  });

  it("every operator route names a permission of the table, and every permission is used", () => {
    for (const r of operatorRoutes) expect(r.permission, `${r.method} ${r.path}`).toBeDefined();
    const used = new Set(operatorRoutes.map((r) => r.permission));
    const unused = Object.keys(OPERATOR_ACTIONS).filter((a) => !used.has(a as keyof typeof OPERATOR_ACTIONS));
    expect(unused).toEqual([]);
  });

  for (const role of OPERATOR_ROLES)
    it(`${role}: allowed exactly where the table says`, async () => {
      const rows: string[] = [];
      for (const r of ordered) {
        const res = await clients[role].call(concrete(r.path), {
          method: r.method,
          body: r.method === "POST" ? { nonsense: true } : undefined,
        });
        const allowed = can(role, r.permission!);
        rows.push(
          `${r.method} ${r.path} ${r.permission} -> ${res.status} ${(res.body as { error?: { code: string } })?.error?.code ?? ""}`,
        );
        expect(res.status, rows.at(-1)).toBeLessThan(500);
        if (allowed) expect(res.status, rows.at(-1)).not.toBe(403);
        else {
          expect(res.status, rows.at(-1)).toBe(403);
          expect((res.body as { error: { code: string } }).error.code).toBe("FORBIDDEN");
        }
      }
      expect(rows.length).toBe(operatorRoutes.length);
    });

  it("a refused write changes nothing and writes no audit row", async () => {
    // The viewer signed out above (the table's last route): a new session.
    clients.viewer = await consoleClient(server.baseUrl, privateKeyToAccount(keys.viewer));
    const before = await db.auditEvent.count({ where: { NOT: { action: { startsWith: "operator.sign" } } } });
    for (const r of operatorRoutes.filter((x) => x.method === "POST" && !can("viewer", x.permission!)))
      expect((await clients.viewer.call(concrete(r.path), { method: "POST", body: { reason: "x" } })).status).toBe(403);
    expect(await db.auditEvent.count({ where: { NOT: { action: { startsWith: "operator.sign" } } } })).toBe(before);
  });
});
