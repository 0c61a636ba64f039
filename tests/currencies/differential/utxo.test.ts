// Differential tests, Bitcoin-style chains: bitcoinjs-lib (one-byte base58 versions, segwit),
// bs58check (two-byte versions: Zcash, Horizen; TRON, Ontology), bech32 (Zcash TEX/Sapling
// encoding), ecashaddrjs (CashAddr).
import * as ecc from "@bitcoinerlab/secp256k1";
import { bech32, bech32m } from "bech32";
import * as bitcoin from "bitcoinjs-lib";
import bs58check from "bs58check";
import ecashaddr from "ecashaddrjs";
import { describe, expect, it, vi } from "vitest";
import { getFamily } from "../../../lib/currencies/families/index";
import type { Random } from "../../../lib/currencies/families/util";
import { type Reference, runDifferential, seededRandom } from "./harness";

bitcoin.initEccLib(ecc); // bitcoinjs only accepts taproot (bc1p) once an ECC library is set

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const pick = <T>(random: Random, xs: T[]) => xs[random(1)[0] % xs.length];

/** A valid x-only public key (taproot output key): an x on secp256k1 (half of all x are). */
function xOnlyKey(random: Random): Uint8Array {
  for (;;) {
    const x = random(32);
    if (ecc.isXOnlyPoint(x)) return x;
  }
}

// Base58 version bytes and segwit HRPs from each chain's chainparams.cpp (base58Prefixes
// PUBKEY_ADDRESS / SCRIPT_ADDRESS, bech32_hrp), written out here rather than read from the
// registry so that a wrong byte in the registry shows up as a disagreement.
interface Chain {
  family: string;
  p2pkh: number;
  p2sh: number;
  hrp?: string;
  taproot?: boolean;
}
const CHAINS: Chain[] = [
  { family: "utxo:btc", p2pkh: 0x00, p2sh: 0x05, hrp: "bc", taproot: true },
  { family: "utxo:ltc", p2pkh: 0x30, p2sh: 0x32, hrp: "ltc", taproot: true }, // SCRIPT_ADDRESS2 (M...); legacy 3... is refused
  { family: "utxo:doge", p2pkh: 0x1e, p2sh: 0x16 },
  { family: "utxo:dash", p2pkh: 0x4c, p2sh: 0x10 },
  { family: "utxo:dgb", p2pkh: 0x1e, p2sh: 0x3f, hrp: "dgb", taproot: true },
  { family: "utxo:rvn", p2pkh: 0x3c, p2sh: 0x7a },
  { family: "utxo:qtum", p2pkh: 0x3a, p2sh: 0x32, hrp: "qc", taproot: true },
  { family: "utxo:kmd", p2pkh: 0x3c, p2sh: 0x55 },
  { family: "utxo:btg", p2pkh: 0x26, p2sh: 0x17, hrp: "btg" },
  { family: "utxo:bsv", p2pkh: 0x00, p2sh: 0x05 },
  { family: "utxo:firo", p2pkh: 0x52, p2sh: 0x07 },
  { family: "utxo:xvg", p2pkh: 0x1e, p2sh: 0x21 },
  { family: "utxo:pivx", p2pkh: 0x1e, p2sh: 0x0d },
];

function network(c: Chain): bitcoin.Network {
  return { messagePrefix: "", bech32: c.hrp ?? "", bip32: { public: 0, private: 0 }, pubKeyHash: c.p2pkh, scriptHash: c.p2sh, wif: 0 };
}

/** Witness version of a segwit address, or null. */
function witnessVersion(address: string): number | null {
  for (const codec of [bech32, bech32m]) {
    try {
      return codec.decode(address).words[0];
    } catch {}
  }
  return null;
}

function utxoReference(c: Chain): Reference {
  const net = network(c);
  const hasSegwit = !!c.hrp;
  return {
    family: c.family,
    check: "address.toOutputScript",
    accepts(address) {
      try {
        bitcoin.address.toOutputScript(address, net);
        return true;
      } catch {
        return false;
      }
    },
    make(random) {
      const kind = random(1)[0] % (hasSegwit ? (c.taproot ? 5 : 4) : 2);
      const h20 = random(20);
      if (kind === 0) return bitcoin.address.toBase58Check(h20, c.p2pkh);
      if (kind === 1) {
        if (c.family === "utxo:bsv") return bitcoin.address.toBase58Check(h20, c.p2pkh);
        return bitcoin.address.toBase58Check(h20, c.p2sh);
      }
      if (kind === 2) return bitcoin.address.toBech32(h20, 0, c.hrp!); // P2WPKH
      if (kind === 3) return bitcoin.address.toBech32(random(32), 0, c.hrp!); // P2WSH
      return bitcoin.address.toBech32(xOnlyKey(random), 1, c.hrp!); // P2TR
    },
    stricter(address) {
      const v = witnessVersion(address);
      // bitcoinjs accepts witness v2-16 ("future segwit", with a console warning): nothing can
      // spend them safely today, so the registry refuses them.
      if (v !== null && v >= 2) return "witness v2+ (future segwit) is refused";
      if (v === 1 && !c.taproot) return `${c.family} has no taproot`;
      if (c.family === "utxo:bsv" && v === null) {
        try {
          if (bs58check.decode(address)[0] === c.p2sh) return "BSV P2SH is unspendable since Genesis";
        } catch {}
      }
      return null;
    },
  };
}

/** Two-byte-version base58check chains and single-version account chains, via bs58check. */
function base58checkReference(family: string, versions: number[][], len: number, extra?: Partial<Reference>): Reference {
  const matches = (p: Uint8Array) => versions.some((v) => p.length === v.length + len && v.every((b, i) => p[i] === b));
  return {
    family,
    check: "bs58check.decode + version",
    accepts(address) {
      try {
        return matches(bs58check.decode(address));
      } catch {
        return false;
      }
    },
    make: (random) => bs58check.encode(Uint8Array.from([...pick(random, versions), ...random(len)])),
    ...extra,
  };
}

// Zcash: transparent via bs58check (zcash chainparams.cpp: t1 = 1cb8, t3 = 1cbd); TEX (ZIP-320,
// bech32m "tex", 20 bytes) and Sapling (bech32 "zs", 43 bytes) via the bech32 package. The
// Sapling payload is not checked as Jubjub points (no JS library does; see the registry report).
const zecTransparent = base58checkReference(
  "utxo:zec",
  [
    [0x1c, 0xb8],
    [0x1c, 0xbd],
  ],
  20,
);
const zcash: Reference = {
  family: "utxo:zec",
  check: "bs58check / bech32m(tex) / bech32(zs)",
  accepts(address) {
    const lower = address.toLowerCase();
    try {
      if (lower.startsWith("tex1")) {
        const d = bech32m.decode(address);
        return d.prefix === "tex" && bech32m.fromWords(d.words).length === 20;
      }
      if (lower.startsWith("zs1")) {
        const d = bech32.decode(address, 90);
        return d.prefix === "zs" && bech32.fromWords(d.words).length === 43;
      }
    } catch {
      return false;
    }
    return zecTransparent.accepts(address) as boolean;
  },
  make(random) {
    const k = random(1)[0] % 3;
    if (k === 0) return bech32m.encode("tex", bech32m.toWords(random(20)));
    if (k === 1) return bech32.encode("zs", bech32.toWords(random(43)), 90);
    return zecTransparent.make(random) as string;
  },
};

function cashaddrReference(family: string, prefix: string): Reference {
  return {
    family,
    check: "isValidCashAddress",
    // the prefix may be omitted (CashAddr spec); the library wants to be told which one
    accepts: (address) => ecashaddr.isValidCashAddress(address, prefix),
    make: (random) => ecashaddr.encodeCashAddress(prefix, pick(random, ["p2pkh", "p2sh"]), hex(random(20))),
  };
}

describe("differential: Bitcoin-style chains", () => {
  runDifferential("bitcoinjs-lib", CHAINS.map(utxoReference));
  runDifferential("bs58check", [
    zcash,
    base58checkReference(
      "utxo:zen",
      [
        [0x20, 0x89],
        [0x20, 0x96],
      ],
      20,
    ),
    base58checkReference("tron", [[0x41]], 20),
    base58checkReference("ontology", [[0x17]], 20),
  ]);
  runDifferential("ecashaddrjs", [cashaddrReference("cashaddr:bch", "bitcoincash"), cashaddrReference("cashaddr:ecash", "ecash")]);

  it("bitcoinjs-lib accepts witness v2-16 addresses; the registry refuses them (known library leniency)", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const random = seededRandom("future-segwit");
    const btc = getFamily("utxo:btc")!;
    for (let v = 2; v <= 16; v++) {
      const address = bitcoin.address.toBech32(random(32), v, "bc");
      expect(() => bitcoin.address.toOutputScript(address, bitcoin.networks.bitcoin), address).not.toThrow();
      expect(btc.validate(address), address).toBe(false);
    }
    warn.mockRestore();
  });
});
