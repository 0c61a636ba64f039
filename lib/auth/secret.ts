import "server-only";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { getConfig } from "@/lib/config";

// The key that signs and encrypts session cookies (next-auth JWTs).
//
// NEXTAUTH_SECRET wins when set (required when several app instances share sessions). When
// it is unset, a fresh clone must still work with no configuration, and a constant default
// would be a published secret. So a random 256-bit secret is generated once into the data
// folder, next to the SQLite file (`data/.nextauth-secret`, git-ignored with the rest of
// `data/`), file mode 0600, and reused by every later start. On PostgreSQL the data folder
// is ./data of the working directory. Deleting the file signs everyone out.

let cached: string | null = null;

export function secretFilePath(): string {
  const c = getConfig();
  const dir = c.sqlitePath ? path.dirname(c.sqlitePath) : path.resolve("data");
  return path.join(dir, ".nextauth-secret");
}

export function getAuthSecret(): string {
  cached ??= loadSecret();
  return cached;
}

function loadSecret(): string {
  const fromEnv = getConfig().NEXTAUTH_SECRET?.trim();
  if (fromEnv) return fromEnv;
  const file = secretFilePath();
  const read = () => {
    const s = fs.readFileSync(file, "utf8").trim();
    if (s.length < 32) throw new Error(`${file} holds no usable secret; delete it to have a new one generated`);
    return s;
  };
  try {
    return read();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
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
        return read();
      } catch (err) {
        if (i >= 20) throw err;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 25);
      }
    }
  }
}
