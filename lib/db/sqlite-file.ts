import "server-only";
import fs from "node:fs";
import path from "node:path";

/**
 * Creates a SQLite database's folder (0700) and file (0600) when they do not exist yet, so
 * that the data is readable by the service's own user only. SQLite gives its -wal and -shm
 * files the database file's permissions. Existing folders and files are left as they are:
 * their permissions are the operator's choice.
 */
export function prepareSqliteFile(file: string): void {
  const dir = path.dirname(file);
  if (!fs.existsSync(dir)) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    fs.closeSync(fs.openSync(file, "wx", 0o600));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  }
}
