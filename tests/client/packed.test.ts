import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateAddress, getCurrency } from "@/lib/currencies";
import { type RunningApp, startApp } from "../support/app";
import { migratedDatabase, ROOT, type TestDatabase } from "../support/server";

// The client as an integrator gets it (issue 53): packages/client built with tsc and packed
// with npm pack, in a temp folder (the work tree is left as it was), extracted into a temp
// project's node_modules, and a plain script that imports only that package runs the README's
// flow against an app in this process: estimate, create (an idempotent replay), the sandbox's
// deposit, followOrder to finished, a 422 and a 429 caught by their codes. followOrder uses its
// default transport: the order's event stream (polling only where an app has none, tests/client/sse.test.ts).

const run = promisify(execFile);
const PKG = path.join(ROOT, "packages/client");

/** Runs a script with node in `cwd`, without blocking this process (the app under test answers from it). */
function node(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { cwd, env: { ...process.env, ...env } });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out, err }));
  });
}

describe("the packed @reseller/client", () => {
  let tmp: string;
  let project: string;
  let files: string[];
  let packedManifest: Record<string, unknown>;
  const dbs: TestDatabase[] = [];
  const apps: RunningApp[] = [];
  let statusBefore: string;

  beforeAll(async () => {
    statusBefore = (await run("git", ["status", "--porcelain"], { cwd: ROOT })).stdout;
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "reseller-client-"));
    // Build and pack a copy: dist/ and the tarball never touch the work tree.
    const copy = path.join(tmp, "client");
    fs.mkdirSync(copy);
    for (const f of ["package.json", "README.md", "tsconfig.json", "src", "examples"])
      fs.cpSync(path.join(PKG, f), path.join(copy, f), { recursive: true });
    await run(process.execPath, [path.join(ROOT, "node_modules/typescript/bin/tsc"), "-p", copy]);
    const packed = JSON.parse((await run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", tmp], { cwd: copy })).stdout);
    files = packed[0].files.map((f: { path: string }) => f.path).sort();
    project = path.join(tmp, "project");
    const into = path.join(project, "node_modules/@reseller/client");
    fs.mkdirSync(into, { recursive: true });
    fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "integrator", private: true, type: "module" }));
    await run("tar", ["-xzf", path.join(tmp, packed[0].filename), "-C", into, "--strip-components=1"]);
    packedManifest = JSON.parse(fs.readFileSync(path.join(into, "package.json"), "utf8"));
    fs.copyFileSync(path.join(import.meta.dirname, "fixtures/packed-flow.mjs"), path.join(project, "flow.mjs"));

    for (const env of [{}, { RATE_LIMIT_PUBLIC_PER_MINUTE: "2" }]) {
      const db = await migratedDatabase("sqlite");
      dbs.push(db);
      apps.push(await startApp({ databaseUrl: db.url, env }));
    }
  });

  afterAll(async () => {
    for (const a of apps) await a.stop();
    for (const d of dbs) await d.drop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("is an ESM package with types and no runtime dependency", () => {
    expect(packedManifest.name).toBe("@reseller/client");
    expect(packedManifest.type).toBe("module");
    expect(packedManifest.dependencies).toBeUndefined();
    expect(files).toContain("dist/index.js");
    expect(files).toContain("dist/index.d.ts");
    expect(files).toContain("README.md");
    expect(files.filter((f) => !/^(dist|src|examples)\/|^(README\.md|package\.json)$/.test(f))).toEqual([]);
  });

  it("runs the README's flow from a script that imports only the packed package", async () => {
    const address = generateAddress(getCurrency("eth")!).address;
    const r = await node("flow.mjs", project, {
      BASE_URL: `${apps[0].baseUrl}/api/v1`,
      LIMITED_URL: `${apps[1].baseUrl}/api/v1`,
      ADDRESS: address,
    });
    expect(r.code, `${r.err}\n${r.out}`).toBe(0);
    const steps = Object.fromEntries(
      r.out
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l))
        .map((o) => [o.step, o]),
    );
    expect(steps.resolved.from).toBe(`file://${fs.realpathSync(project)}/node_modules/@reseller/client/dist/index.js`);
    expect(steps.estimate.estimate).toMatchObject({ fromCurrency: "btc", toCurrency: "eth", fromAmount: 0.01, rateType: "floating" });
    expect(steps.create.order).toMatchObject({ fromCurrency: "btc", toCurrency: "eth", payoutAddress: address, status: "waiting" });
    expect(steps.create.replayId).toBe(steps.create.order.id);
    expect(steps.deposit.status).toBe("confirming");
    expect(steps.follow.final).toMatchObject({ id: steps.create.order.id, status: "finished" });
    expect(steps.follow.final.payoutHash).toEqual(expect.any(String));
    expect(steps.follow.seen.at(-1)).toBe("finished");
    expect(steps.follow.seen).toEqual([...new Set(steps.follow.seen)]);
    // The default transport is the order's event stream (GET /exchange/{id}/events), which the app serves.
    expect(steps.follow.transports).toEqual(["sse"]);

    expect(steps.invalid).toMatchObject({ thrown: true, isApiError: true, narrowed: true, status: 422, code: "INVALID_ADDRESS" });
    expect(steps.invalid.requestId).toEqual(expect.any(String));
    expect(steps.limited).toMatchObject({ thrown: true, statuses: [200, 200], narrowed: true, status: 429, code: "RATE_LIMITED" });
    expect(steps.limited.retryAfter).toBeGreaterThanOrEqual(1);
    expect(steps.limited.retryAfter).toBeLessThanOrEqual(60);
  });

  it("leaves the work tree as it was", async () => {
    expect((await run("git", ["status", "--porcelain"], { cwd: ROOT })).stdout).toBe(statusBefore);
  });
});
