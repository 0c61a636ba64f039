import type { TestProject } from "vitest/node";
import { createDatabase, startServer } from "./server";

/** Global setup body shared by the SQLite and PostgreSQL projects. */
export function globalServer(kind: "sqlite" | "postgres") {
  return async (project: TestProject) => {
    const db = await createDatabase(kind);
    const server = await startServer({ databaseUrl: db.url });
    project.provide("baseUrl", server.baseUrl);
    project.provide("databaseUrl", db.url);
    project.provide("dbKind", kind);
    return async () => {
      await server.stop();
      await db.drop();
    };
  };
}
