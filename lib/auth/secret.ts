import "server-only";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { getConfig } from "@/lib/config";
import { slot } from "@/lib/scope";

// The key that signs and encrypts session cookies (next-auth JWTs).
//
// NEXTAUTH_SECRET wins when set (required when several app instances share sessions). When
// it is unset, a fresh clone must still work with no configuration, and a constant default
// would be a published secret. So the server, at start (ensureAuthSecret, from server.ts),
// generates a random 256-bit secret once into the data folder, next to the SQLite file
// (`data/.nextauth-secret`, git-ignored with the rest of `data/`), file mode 0600, and every
// later start reuses it. `next build` never creates it (the dashboard only reads it,
// getAuthSecret), so a built image does not ship one. On PostgreSQL the data folder is
// ./data of the working directory. Deleting the file signs everyone out.

/** The current app's secret, once read or made. */
const appSecret = slot<{ value: string | null }>(() => ({ value: null }));

export function secretFilePath(): string {
  const c = getConfig();
  const dir = c.sqlitePath ? path.dirname(c.sqlitePath) : path.resolve("data");
  return path.join(dir, ".nextauth-secret");
}

const fromEnv = () => getConfig().NEXTAUTH_SECRET?.trim() || null;

function readSecretFile(file: string): string {
  const s = fs.readFileSync(file, "utf8").trim();
  if (s.length < 32) throw new Error(`${file} holds no usable secret; delete it to have a new one generated`);
  return s;
}

/** The dashboard's view: NEXTAUTH_SECRET, or the file the server made at its start. */
export function getAuthSecret(): string {
  const held = appSecret();
  held.value ??= fromEnv() ?? readSecretFile(secretFilePath());
  return held.value;
}

/**
 * At server start: NEXTAUTH_SECRET, or the secret file, created (0600, in a 0700 folder) when
 * missing. Throws, so that the server refuses to start, when there is neither and the file
 * can be neither read nor written.
 */
export function ensureAuthSecret(): void {
  if (fromEnv()) return;
  const file = secretFilePath();
  try {
    appSecret().value = readOrCreate(file);
  } catch (e) {
    throw new Error(
      `NEXTAUTH_SECRET is not set and the session secret file ${file} can be neither read nor created (${(e as Error).message}): set NEXTAUTH_SECRET`,
    );
  }
}

function readOrCreate(file: string): string {
  try {
    return readSecretFile(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  const dir = path.dirname(file);
  if (!fs.existsSync(dir)) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const secret = crypto.randomBytes(32).toString("base64url");
  try {
    // "wx": exclusive create, so two processes starting at once agree on one secret.
    fs.writeFileSync(file, `${secret}\n`, { flag: "wx", mode: 0o600 });
    return secret;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    // Another process created it a moment ago; give it time to finish writing.
    for (let i = 0; ; i++) {
      try {
        return readSecretFile(file);
      } catch (err) {
        if (i >= 20) throw err;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 25);
      }
    }
  }
}
