import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { startServer } from "../../support/server";

// Issue 13, items 5 and 6: the session secret is made by the server at its first start
// (not by `next build`, so an image never ships one), mode 0600, and a production server
// that can neither read nor write one refuses to start; the data folder the product makes
// is 0700 and the SQLite files 0600.

const mode = (p: string) => fs.statSync(p).mode & 0o777;

describe.runIf(inject("dbKind") === "sqlite")("files the product creates", () => {
  it("a first start creates the data folder 0700, the database files 0600 and the session secret 0600", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "reseller-files-"));
    const dir = path.join(root, "data");
    const s = await startServer({ databaseUrl: `file:${path.join(dir, "app.db")}`, env: { NEXTAUTH_SECRET: "" } });
    try {
      expect(mode(dir).toString(8)).toBe("700");
      const files = fs.readdirSync(dir).filter((f) => f.startsWith("app.db"));
      expect(files).toContain("app.db");
      for (const f of files) expect(`${f} ${mode(path.join(dir, f)).toString(8)}`).toBe(`${f} 600`);
      // Made at start, before any dashboard request asked for it.
      const secret = path.join(dir, ".nextauth-secret");
      expect(fs.existsSync(secret)).toBe(true);
      expect(mode(secret).toString(8)).toBe("600");
      expect(fs.readFileSync(secret, "utf8").trim().length).toBeGreaterThanOrEqual(32);
    } finally {
      await s.stop();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it("in production, without NEXTAUTH_SECRET and no way to read or write one, the server refuses to start", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "reseller-files-"));
    // A folder where the secret file should be: it can be neither read nor created.
    fs.mkdirSync(path.join(root, ".nextauth-secret"));
    try {
      await expect(startServer({ databaseUrl: `file:${path.join(root, "app.db")}`, env: { NEXTAUTH_SECRET: "" } })).rejects.toThrow(
        /NEXTAUTH_SECRET/,
      );
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
