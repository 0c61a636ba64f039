import fs from "node:fs";
import { inject } from "vitest";

// The API keys HTTP tests send (tests/support/api.ts records them), so that the global
// teardown (tests/support/global-server.ts) can search the server's whole log for them.

const recorded = new Set<string>();

export function recordSecret(secret: string) {
  if (secret.length < 16 || recorded.has(secret)) return;
  recorded.add(secret);
  fs.appendFileSync(inject("secretsFile"), `${secret}\n`);
}
