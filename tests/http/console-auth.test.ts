import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { type RunningApp, startApp } from "../support/app";
import { type ConsoleClient, consoleCall, consoleClient, signInConsole } from "../support/console";
import { migratedDatabase, type TestDatabase } from "../support/server";

// Issue 52, point 1: operators sign in to the console with their wallet, in a session of their
// own; the first admin comes from OPERATOR_ADMIN_WALLET; admins add and remove the others; a
// removed operator's session ends at once; everything is in the audit log.

const admin = privateKeyToAccount(`0x${"a1".repeat(32)}`);
const viewer = privateKeyToAccount(`0x${"a2".repeat(32)}`);
const stranger = privateKeyToAccount(`0x${"a3".repeat(32)}`);

let database: TestDatabase;
let server: RunningApp;
let db: Db;
let adminClient: ConsoleClient;

beforeAll(async () => {
  database = await migratedDatabase(inject("dbKind"));
  // A small keyless budget per IP: the console's signed-in requests must not count against it.
  server = await startApp({ databaseUrl: database.url, env: { OPERATOR_ADMIN_WALLET: admin.address, RATE_LIMIT_PUBLIC_PER_MINUTE: "5" } });
  db = createDb(database.url);
  adminClient = await consoleClient(server.baseUrl, admin);
});

afterAll(async () => {
  await db?.$disconnect();
  await server?.stop();
  await database?.drop();
});

describe("console sign-in", () => {
  it("makes OPERATOR_ADMIN_WALLET the first admin, signs it in with an http-only, same-site cookie and answers who it is", async () => {
    const s = await signInConsole(server.baseUrl, admin);
    expect(s.status).toBe(200);
    expect(s.cookie).toMatch(/^op_session=[A-Za-z0-9_-]{43}$/);
    const me = await adminClient.call("/me");
    expect(me.status).toBe(200);
    expect(me.body.operator).toMatchObject({ wallet: admin.address.toLowerCase(), role: "admin" });
    expect(me.body.actions).toContain("operators.manage");
    // The token is never stored: the session row holds its hash.
    const token = adminClient.cookie.split("=")[1];
    expect(await db.operatorSession.count({ where: { id: token } })).toBe(0);
  });

  it("refuses a wallet that is no operator, and records the refusal", async () => {
    const s = await signInConsole(server.baseUrl, stranger);
    expect(s.status).toBe(401);
    expect(s.body.error).toMatchObject({ code: "UNAUTHORIZED", reason: "NOT_AN_OPERATOR" });
    expect(s.cookie).toBe("");
    const refused = await db.auditEvent.findMany({ where: { action: "operator.sign_in_refused", actor: stranger.address.toLowerCase() } });
    expect(refused).toHaveLength(1);
  });

  it("answers 401 without a session, 401 for a forged cookie, and 403 to another site", async () => {
    expect((await consoleCall(server.baseUrl, "/me")).body.error.code).toBe("UNAUTHORIZED");
    expect((await consoleCall(server.baseUrl, "/me", { cookie: "op_session=forged" })).status).toBe(401);
    const cross = await consoleCall(server.baseUrl, "/me", { cookie: adminClient.cookie, origin: "https://evil.example" });
    expect(cross.status).toBe(403);
    expect(cross.body.error.code).toBe("FORBIDDEN_ORIGIN");
    // Unknown console paths: 404 in the error shape, whoever asks.
    expect((await consoleCall(server.baseUrl, "/no-such-thing")).status).toBe(404);
  });

  it("lets an admin add a viewer, who reads but cannot manage, and ends the viewer's session when removed", async () => {
    const added = await adminClient.call("/operators", { body: { wallet: viewer.address, role: "viewer" } });
    expect(added.status).toBe(201);
    const viewerClient = await consoleClient(server.baseUrl, viewer);
    expect((await viewerClient.call("/operators")).body.operators.map((o: { role: string }) => o.role).sort()).toEqual(["admin", "viewer"]);
    const refused = await viewerClient.call("/operators", { body: { wallet: stranger.address, role: "admin" } });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: "FORBIDDEN", permission: "operators.manage" });
    expect(await db.operator.count({ where: { walletAddress: stranger.address.toLowerCase() } })).toBe(0);

    const removed = await adminClient.call(`/operators/${added.body.operator.id}/remove`, { body: { reason: "left the team" } });
    expect(removed.status).toBe(200);
    expect((await viewerClient.call("/me")).status).toBe(401);
    expect((await signInConsole(server.baseUrl, viewer)).status).toBe(401);
  });

  it("counts a signed-in operator's requests against a budget of its own, and unsigned ones against the IP", async () => {
    const ip = "198.51.100.77";
    for (let i = 0; i < 8; i++) expect((await adminClient.call("/me", { ip })).status).toBe(200);
    const anonymous = [];
    for (let i = 0; i < 8; i++) anonymous.push((await consoleCall(server.baseUrl, "/me", { ip })).status);
    expect(anonymous.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(anonymous.slice(5)).toEqual([429, 429, 429]);
  });

  it("keeps the last admin", async () => {
    const me = await adminClient.call("/me");
    const r = await adminClient.call(`/operators/${me.body.operator.id}/remove`, { body: {} });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe("LAST_ADMIN");
    const demote = await adminClient.call("/operators", { body: { wallet: admin.address, role: "viewer" } });
    expect(demote.body.error.code).toBe("LAST_ADMIN");
    expect((await adminClient.call("/me")).body.operator.role).toBe("admin");
  });

  it("validates bodies: a bad role or wallet is a 400, never a 500", async () => {
    for (const body of [{ wallet: viewer.address, role: "root" }, { wallet: "0x123", role: "viewer" }, { wallet: 5, role: [] }, "x"]) {
      const r = await adminClient.call("/operators", { body });
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
  });

  it("ends a session on sign-out: a copy of the cookie is no session", async () => {
    const other = await consoleClient(server.baseUrl, admin);
    expect((await other.call("/auth/sign-out", { method: "POST" })).status).toBe(200);
    expect((await other.call("/me")).status).toBe(401);
    expect((await adminClient.call("/me")).status).toBe(200);
  });

  it("keeps every step in the audit log, newest first, filterable and exported as CSV", async () => {
    const log = await adminClient.call("/audit?targetType=operator");
    expect(log.status).toBe(200);
    const actions = log.body.events.map((e: { action: string }) => e.action);
    expect(actions).toEqual(["operator.remove", "operator.add", "operator.add"]);
    const remove = log.body.events[0];
    expect(remove).toMatchObject({
      actor: admin.address.toLowerCase(),
      role: "admin",
      reason: "left the team",
      before: { role: "viewer" },
    });
    const signIns = await adminClient.call("/audit?action=operator.sign_in&limit=2");
    expect(signIns.body.events).toHaveLength(2);
    const older = await adminClient.call(`/audit?action=operator.sign_in&limit=2&before=${signIns.body.next}`);
    expect(older.body.events.every((e: { id: number }) => e.id < signIns.body.next)).toBe(true);
    const csv = await adminClient.call("/audit.csv?actionPrefix=operator.");
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    const lines = (csv.body as string).trim().split("\n");
    expect(lines[0]).toBe("id,at,actor,role,action,targetType,targetId,reason,before,after");
    expect(lines.some((l) => l.includes("operator.sign_out"))).toBe(true);
    expect(lines.length - 1).toBe(await db.auditEvent.count({ where: { action: { startsWith: "operator." } } }));
  });
});
