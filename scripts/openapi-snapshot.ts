// Writes the v1 OpenAPI document as the service serves it to docs/openapi.json, the snapshot
// that tests/http/openapi-compat.test.ts compares the served one with: `npm run openapi:snapshot`,
// in the same commit as a change to the API (a breaking one fails CI until it is done).
import fs from "node:fs";
import path from "node:path";
import { openApiDocument } from "@/lib/http/openapi";

const SNAPSHOT = path.join(import.meta.dirname, "../docs/openapi.json");

fs.writeFileSync(SNAPSHOT, `${JSON.stringify(openApiDocument(), null, 2)}\n`);
console.log(`wrote ${path.relative(process.cwd(), SNAPSHOT)}`);
