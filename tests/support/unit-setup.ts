import { afterAll } from "vitest";
import { closeScope, installScope, newScope } from "@/lib/scope";
import { closeSettingsApps } from "./settings";

// Every unit test file runs in an app of its own (lib/scope.ts), made from the test process's
// environment and installed before the file is even imported: nothing one file's app made
// (a client, a cache, an engine) is seen by another file, whether or not they share a process.
const app = newScope(process.env, "unit-test");
installScope(app);

afterAll(async () => {
  await closeSettingsApps();
  installScope(null);
  await closeScope(app);
});
