// Registry report: per address family, the currencies using it, the validation level, the
// number of real mainnet vectors (and how they were obtained), testnet vectors, how many
// single-character substitution variants were run (all must be rejected), and which maintained
// library the differential tests (tests/currencies/differential) compare it with. Run:
//   npx tsx --conditions=react-server scripts/registry-report.ts   (npm run registry:report)
import { getFamily } from "../lib/currencies/families/index";
import { FAMILIES, listCurrencies } from "../lib/currencies/index";
import { singleCharVariants, variantSpec } from "../lib/currencies/variants";
import { VECTORS } from "../lib/currencies/vectors";
import { DIFFERENTIAL, NO_REFERENCE } from "../tests/currencies/differential/coverage";

interface Row {
  family: string;
  currencies: number;
  level: string;
  valid: number;
  provenance: string;
  testnet: number;
  variants: number;
  accepted: number;
  differential: string;
}

const rows: Row[] = [];
const failures: string[] = [];
for (const info of FAMILIES.values()) {
  const fam = getFamily(info.key)!;
  const v = VECTORS[info.key] ?? { valid: [], testnet: [] };
  let variants = 0;
  let accepted = 0;
  for (const x of v.valid) {
    if (!fam.validate(x.address)) failures.push(`${info.key}: valid vector rejected: ${x.address}`);
    // EIP-55-style families only have a checksum in mixed case
    const checksummed =
      fam.level === "checksum" ||
      (fam.level !== "format" && x.address !== x.address.toLowerCase() && x.address !== x.address.toUpperCase());
    const spec = checksummed ? variantSpec(info.key, x.address) : null;
    if (!spec) continue;
    for (const m of singleCharVariants(x.address, spec)) {
      variants++;
      if (fam.validate(m)) {
        accepted++;
        failures.push(`${info.key}: variant accepted: ${m}`);
      }
    }
  }
  for (const x of v.testnet) if (fam.validate(x.address)) failures.push(`${info.key}: testnet vector accepted: ${x.address}`);
  const kinds = new Map<string, number>();
  for (const x of v.valid) kinds.set(x.kind, (kinds.get(x.kind) ?? 0) + 1);
  rows.push({
    family: info.key,
    currencies: info.tickers.length,
    level: info.level,
    valid: v.valid.length,
    provenance: [...kinds].map(([k, n]) => `${n} ${k}`).join(", ") || "-",
    testnet: v.testnet.length,
    variants,
    accepted,
    differential: DIFFERENTIAL[info.key] ?? "-",
  });
  if (!DIFFERENTIAL[info.key] && !NO_REFERENCE[info.key]) failures.push(`${info.key}: neither in DIFFERENTIAL nor in NO_REFERENCE`);
}

const levelName = (l: string) =>
  l === "checksum-if-mixed-case" ? "checksum (mixed case)" : l === "checksum" ? "checksum" : "exact format";
const header = ["family", "currencies", "level", "vectors", "provenance", "testnet", "variants run", "differential library"];
const table = rows.map((r) => [
  r.family,
  String(r.currencies),
  levelName(r.level),
  String(r.valid),
  r.provenance,
  String(r.testnet),
  r.level === "format" ? "n/a" : String(r.variants),
  r.differential,
]);
const widths = header.map((h, i) => Math.max(h.length, ...table.map((t) => t[i].length)));
const line = (cells: string[]) =>
  cells
    .map((c, i) => (i === 1 || i === 3 || i === 5 || i === 6 ? c.padStart(widths[i]) : c.padEnd(widths[i])))
    .join("  ")
    .trimEnd();
console.log(line(header));
console.log(widths.map((w) => "-".repeat(w)).join("  "));
for (const t of table) console.log(line(t));

const used = rows.filter((r) => r.currencies > 0);
const currencies = listCurrencies();
const sum = (f: (r: Row) => number, rs = used) => rs.reduce((a, r) => a + f(r), 0);
const byLevel = (l: string) => used.filter((r) => r.level === l);
const curByLevel = (l: string) => currencies.filter((c) => c.validationLevel === l).length;
console.log("");
console.log(`Totals (families with at least one currency):`);
console.log(
  `  families: ${used.length} (${byLevel("checksum").length} checksum, ${byLevel("checksum-if-mixed-case").length} checksum-if-mixed-case, ${byLevel("format").length} exact format); ${rows.length - used.length} more families have validators but no listed currency`,
);
console.log(
  `  currencies: ${currencies.length} (${curByLevel("checksum")} checksum, ${curByLevel("checksum-if-mixed-case")} checksum-if-mixed-case (EVM), ${curByLevel("format")} exact format); ${currencies.filter((c) => !c.isAvailable).length} unavailable`,
);
console.log(
  `  mainnet vectors: ${sum((r) => r.valid)} valid, ${sum((r) => r.testnet)} testnet/wrong-network (all families: ${sum((r) => r.valid, rows)} / ${sum((r) => r.testnet, rows)})`,
);
const provenance = (list: "valid" | "testnet") => {
  const m = new Map<string, number>([
    ["sourced", 0],
    ["found", 0],
    ["derived", 0],
    ["recalled", 0],
  ]);
  for (const r of rows) for (const v of VECTORS[r.family]?.[list] ?? []) m.set(v.kind, (m.get(v.kind) ?? 0) + 1);
  return [...m].map(([k, n]) => `${n} ${k}`).join(", ");
};
console.log(`  vector provenance (mainnet): ${provenance("valid")}`);
console.log(`  vector provenance (testnet / wrong network): ${provenance("testnet")}`);
console.log(`  single-character variants run: ${sum((r) => r.variants, rows)}, accepted: ${sum((r) => r.accepted, rows)}`);
const checked = rows.filter((r) => r.differential !== "-");
console.log(
  `  differential: ${checked.length} of ${rows.length} families checked against ${new Set(checked.map((r) => r.differential)).size} libraries (${used.filter((r) => r.differential !== "-").length} of ${used.length} families with a currency); without one: ${rows
    .filter((r) => r.differential === "-")
    .map((r) => r.family)
    .join(", ")} (reasons in tests/currencies/differential/coverage.ts)`,
);
const gaps = used.filter((r) => r.valid < 2).map((r) => `${r.family} (${r.valid})`);
console.log(`  families with fewer than 2 real vectors: ${gaps.length}${gaps.length ? `: ${gaps.join(", ")}` : ""}`);
if (failures.length) {
  console.error(`\nFAILURES:\n${failures.join("\n")}`);
  process.exit(1);
}
