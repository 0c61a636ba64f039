import "server-only";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The project folder (the one holding prisma/migrations), found from this module's own
 * location so the app works from any working directory: lib/ under tsx, dist/ when bundled.
 */
export function projectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (fs.existsSync(path.join(dir, "prisma", "migrations"))) return dir;
    dir = path.dirname(dir);
  }
  return process.cwd();
}
