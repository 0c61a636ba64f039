// Writes the OpenAPI documents as the service serves them: the v1 API's to docs/openapi.json,
// the hosted page's API's to docs/openapi-hosted.json, the snapshots that
// tests/http/openapi-compat.test.ts and tests/http/hosted-openapi.test.ts compare the served
// ones with: `npm run openapi:snapshot`, in the same commit as a change to either API (a
// breaking one fails CI until it is done).
import fs from "node:fs";
import path from "node:path";
import { hostedOpenApiDocument, openApiDocument } from "@/lib/http/openapi";

for (const [file, doc] of [
  ["../docs/openapi.json", openApiDocument()],
  ["../docs/openapi-hosted.json", hostedOpenApiDocument()],
] as const) {
  const snapshot = path.join(import.meta.dirname, file);
  fs.writeFileSync(snapshot, `${JSON.stringify(doc, null, 2)}\n`);
  console.log(`wrote ${path.relative(process.cwd(), snapshot)}`);
}
