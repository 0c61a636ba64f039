import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { openApiDocument } from "@/lib/http/openapi";
import { ROOT } from "../support/server";

// The client's generated types (packages/client/src/schema.ts) are those of the committed
// document, and the served document generates, with openapi-typescript's default flags, types
// that the client's sources and its example compile against (a `default` in a request schema
// once made POST /exchange's rateType required: the example's createExchange did not compile).

const run = promisify(execFile);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "reseller-client-types-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("the client's types", () => {
  it("are generated from docs/openapi.json (node scripts/client-types.mjs --check)", async () => {
    const r = await run(process.execPath, [path.join(ROOT, "scripts/client-types.mjs"), "--check"], { cwd: ROOT }).catch((e) => e);
    expect(r.code ?? 0, `${r.stderr}`).toBe(0);
  });

  it("generated from the served document with openapi-typescript's default flags, compile with the client and its example", async () => {
    const doc = path.join(tmp, "openapi.json");
    fs.writeFileSync(doc, JSON.stringify(openApiDocument()));
    const pkg = path.join(ROOT, "packages/client");
    fs.cpSync(path.join(pkg, "src"), path.join(tmp, "src"), { recursive: true });
    fs.cpSync(path.join(pkg, "examples"), path.join(tmp, "examples"), { recursive: true });
    fs.rmSync(path.join(tmp, "src/schema.ts"));
    // The CLI as an integrator runs it: no flags.
    await run(process.execPath, [
      path.join(ROOT, "node_modules/openapi-typescript/bin/cli.js"),
      doc,
      "-o",
      path.join(tmp, "src/schema.ts"),
    ]);
    fs.writeFileSync(
      path.join(tmp, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          lib: ["ES2022", "DOM", "DOM.Iterable"],
          types: [],
          module: "ESNext",
          moduleResolution: "Bundler",
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          paths: { "@reseller/client": ["./src/index.ts"] },
        },
        include: ["src", "examples"],
      }),
    );
    const r = await run(process.execPath, [path.join(ROOT, "node_modules/typescript/bin/tsc"), "-p", tmp]).catch((e) => e);
    expect(`${r.stdout}${r.stderr ?? ""}`).toBe("");
    expect(fs.readFileSync(path.join(tmp, "src/schema.ts"), "utf8")).toMatch(/rateType\?: "floating" \| "fixed";/);
  });
});
