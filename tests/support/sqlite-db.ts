import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createDb, type Db } from "@/lib/db/client";
import { migrate } from "@/lib/db/migrate";
import { createDatabase } from "./server";

export interface TempDb {
  db: Db;
  url: string;
  cleanup: () => Promise<void>;
}

/** A migrated SQLite database in a temp folder, for unit tests of service functions. */
export async function tempSqlite(): Promise<TempDb> {
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

/** A migrated database of either kind: a SQLite file, or a fresh PostgreSQL database dropped afterwards. */
export async function tempDatabase(kind: "sqlite" | "postgres"): Promise<TempDb> {
  if (kind === "sqlite") return tempSqlite();
  const created = await createDatabase("postgres");
  await migrate(created.url);
  const db = createDb(created.url);
  return {
    db,
    url: created.url,
    cleanup: async () => {
      await db.$disconnect();
      await created.drop();
    },
  };
}
