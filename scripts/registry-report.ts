// Registry report: per address family, the currencies using it, the validation level, the
// number of real mainnet vectors (and how they were obtained), testnet vectors, and how many
// single-character substitution variants were run (all must be rejected). Run:
//   npx tsx --conditions=react-server scripts/registry-report.ts   (npm run registry:report)
import { getFamily } from "../lib/currencies/families/index";
import { FAMILIES, listCurrencies } from "../lib/currencies/index";
import { singleCharVariants, variantSpec } from "../lib/currencies/variants";
import { VECTORS } from "../lib/currencies/vectors";

interface Row {
  family: string;
  currencies: number;
  level: string;
  valid: number;
  provenance: string;
  testnet: number;
  variants: number;
  accepted: number;
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
    const spec = fam.level === "format" ? null : variantSpec(info.key, x.address);
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
  });
}

const levelName = (l: string) =>
  l === "checksum-if-mixed-case" ? "checksum (mixed case)" : l === "checksum" ? "checksum" : "exact format";
const header = ["family", "currencies", "level", "vectors", "provenance", "testnet", "variants run"];
const table = rows.map((r) => [
  r.family,
  String(r.currencies),
  levelName(r.level),
  String(r.valid),
  r.provenance,
  String(r.testnet),
  r.level === "format" ? "n/a" : String(r.variants),
]);
const widths = header.map((h, i) => Math.max(h.length, ...table.map((t) => t[i].length)));
const line = (cells: string[]) =>
  cells.map((c, i) => (i === 1 || i === 3 || i === 5 || i === 6 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join("  ");
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
const prov = new Map<string, number>();
for (const r of rows) for (const v of VECTORS[r.family]?.valid ?? []) prov.set(v.kind, (prov.get(v.kind) ?? 0) + 1);
console.log(`  vector provenance: ${[...prov].map(([k, n]) => `${n} ${k}`).join(", ")}`);
console.log(`  single-character variants run: ${sum((r) => r.variants, rows)}, accepted: ${sum((r) => r.accepted, rows)}`);
const gaps = used.filter((r) => r.valid < 2).map((r) => `${r.family} (${r.valid})`);
console.log(`  families with fewer than 2 real vectors: ${gaps.length}${gaps.length ? `: ${gaps.join(", ")}` : ""}`);
if (failures.length) {
  console.error(`\nFAILURES:\n${failures.join("\n")}`);
  process.exit(1);
}
