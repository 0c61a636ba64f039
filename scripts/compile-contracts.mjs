#!/usr/bin/env node
// Compiles the test contracts (tests/support/contracts/*.sol) with solc-js, offline, into
// tests/support/contracts/artifacts.json (ABI and creation bytecode per contract). Tests
// deploy from that committed file, so they need no compiler; this script is how it was made.
//
//   node scripts/compile-contracts.mjs           write artifacts.json
//   node scripts/compile-contracts.mjs --check   exit 1 when artifacts.json differs from a fresh compile
//
// The output is deterministic for one compiler version and settings (no metadata hash in
// the bytecode), so --check compares the whole file.
import crypto from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
const solc = require("solc");

const DIR = path.resolve(import.meta.dirname, "../tests/support/contracts");
const OUT = path.join(DIR, "artifacts.json");
const SOLC_VERSION = "0.8.37";
// cancun: understood by anvil and by every chain a withdrawal may target today.
const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: "cancun",
  metadata: { bytecodeHash: "none", appendCBOR: false },
  outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
};

function compile() {
  const version = solc.version();
  if (!version.startsWith(`${SOLC_VERSION}+`)) throw new Error(`solc ${SOLC_VERSION} expected, found ${version}`);
  const files = fs
    .readdirSync(DIR)
    .filter((f) => f.endsWith(".sol"))
    .sort();
  const sources = Object.fromEntries(files.map((f) => [f, { content: fs.readFileSync(path.join(DIR, f), "utf8") }]));
  const out = JSON.parse(solc.compile(JSON.stringify({ language: "Solidity", sources, settings: SETTINGS })));
  const errors = (out.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join("\n"));
  const contracts = {};
  for (const file of files)
    for (const [name, c] of Object.entries(out.contracts[file] ?? {})) {
      if (contracts[name]) throw new Error(`two contracts named ${name}`);
      contracts[name] = { source: file, abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
    }
  const artifacts = {
    compiler: `solc-js ${version}`,
    settings: SETTINGS,
    sources: Object.fromEntries(files.map((f) => [f, `sha256:${crypto.createHash("sha256").update(sources[f].content).digest("hex")}`])),
    contracts,
  };
  return `${JSON.stringify(artifacts, null, 2)}\n`;
}

const fresh = compile();
if (process.argv.includes("--check")) {
  const committed = fs.existsSync(OUT) ? fs.readFileSync(OUT, "utf8") : "";
  if (committed !== fresh) {
    console.error(`${path.relative(process.cwd(), OUT)} does not match the sources: run node scripts/compile-contracts.mjs`);
    process.exit(1);
  }
  console.log("contract artifacts match their sources");
} else {
  fs.writeFileSync(OUT, fresh);
  console.log(`wrote ${path.relative(process.cwd(), OUT)}`);
}
