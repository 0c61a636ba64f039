import fs from "node:fs";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { breakingChanges } from "../../scripts/openapi-compat";
import { api } from "../support/api";
import { ROOT } from "../support/server";

// The served OpenAPI document against the committed snapshot (docs/openapi.json): a change to
// the API fails here until `npm run openapi:snapshot` updates the snapshot in the same commit,
// and a breaking one is named, so that the commit shows what it breaks. The document does not
// depend on the database: checked once, on SQLite.

const snapshot = () => JSON.parse(fs.readFileSync(path.join(ROOT, "docs/openapi.json"), "utf8"));

describe.runIf(inject("dbKind") === "sqlite")("the OpenAPI document against its snapshot", () => {
  it("has no breaking change", async () => {
    const served = (await api("/openapi.json")).body;
    const breaking = breakingChanges(snapshot(), served);
    expect(
      breaking,
      `breaking changes against docs/openapi.json (if meant, run npm run openapi:snapshot):\n${breaking.join("\n")}`,
    ).toEqual([]);
  });

  it("is the snapshot (additions too: the snapshot stays current)", async () => {
    const served = (await api("/openapi.json")).body;
    expect(served, "the API changed: run npm run openapi:snapshot and commit docs/openapi.json").toEqual(snapshot());
  });
});
