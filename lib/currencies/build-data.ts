// Regenerates lib/currencies/data/currencies.json from the source inputs:
//   data/currencies.source.json  (curated list: names, networks, decimals, families, extra IDs,
//                                 availability, limit overrides)
//   data/prices-snapshot.json    (dated USD reference prices with their sources)
// Usage: npx tsx lib/currencies/build-data.ts          (write)
//        npx tsx lib/currencies/build-data.ts --check  (exit 1 if the file is stale)
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildRecords, type PriceSnapshot, type SourceEntry } from "./build";

const dir = join(dirname(fileURLToPath(import.meta.url)), "data");
const source = JSON.parse(readFileSync(join(dir, "currencies.source.json"), "utf8")) as SourceEntry[];
const snapshot = JSON.parse(readFileSync(join(dir, "prices-snapshot.json"), "utf8")) as PriceSnapshot;
const records = buildRecords(source, snapshot);
const text = `${JSON.stringify(records, null, 1)}\n`;
const target = join(dir, "currencies.json");
if (process.argv.includes("--check")) {
  const current = readFileSync(target, "utf8");
  if (current !== text) {
    console.error("currencies.json is stale: run npx tsx lib/currencies/build-data.ts");
    process.exit(1);
  }
  console.log(`currencies.json up to date (${records.length} currencies)`);
} else {
  writeFileSync(target, text);
  console.log(`wrote ${target} (${records.length} currencies)`);
}
