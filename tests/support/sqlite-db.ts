import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createDb, type Db } from "@/lib/db/client";
import { migrate } from "@/lib/db/migrate";

/** A migrated SQLite database in a temp folder, for unit tests of service functions. */
export async function tempSqlite(): Promise<{ db: Db; url: string; cleanup: () => Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "reseller-unit-"));
  const url = `file:${path.join(dir, "unit.db")}`;
  await migrate(url);
  const db = createDb(url);
  return {
    db,
    url,
    cleanup: async () => {
      await db.$disconnect();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
