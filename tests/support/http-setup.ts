import { afterAll, inject } from "vitest";
import { provideDb } from "@/lib/db/client";
import { closeScope, installScope, newScope } from "@/lib/scope";
import { testDb } from "./api";
import { checkLedgerAfterFile } from "./ledger";
import { TEST_ENV } from "./server";
import { closeSettingsApps } from "./settings";

// Runs in every HTTP test file. The file's own code (setting up resellers and keys through the
// service functions, reading the ledger) runs in an app of its own (lib/scope.ts) on the test
// database, as the test process did before apps were values; the app under test is another.
const app = newScope({ ...process.env, ...TEST_ENV, DATABASE_URL: inject("databaseUrl") }, "http-test");
provideDb(app, testDb());
installScope(app);

// After hooks run in reverse order: this one last, once the ledger check (below) is done.
afterAll(async () => {
  await closeSettingsApps();
  installScope(null);
  await closeScope(app);
});

// Whatever the file did, the ledger must still hold together.
checkLedgerAfterFile(testDb);
