import { bech32, bech32m } from "@scure/base";
import type { AddressFamily } from "./types";
import { b58checkDecode, b58checkEncode, concat, type Random, randomNonZero, startsWith, tryDecode } from "./util";

export interface UtxoParams {
  /** Base58Check versions (1 or 2 bytes) followed by a 20-byte hash. */
  p2pkh: number[][];
  p2sh: number[][];
  /** Segwit HRP (mainnet), if the chain has segwit. */
  hrp?: string;
  /** Whether witness v1 (taproot, 32 bytes, bech32m) is accepted. */
  taproot?: boolean;
}

export function decodeSegwit(address: string, hrp: string, taproot: boolean): { version: number; program: Uint8Array } | null {
  const lower = address.toLowerCase();
  if (!lower.startsWith(`${hrp}1`)) return null;
  // v0 uses bech32, v1+ bech32m (BIP-350). Try both, then check the pairing.
  let enc: "bech32" | "bech32m" = "bech32";
  let dec = tryDecode(() => bech32.decode(address as `${string}1${string}`, 90));
  if (!dec) {
    dec = tryDecode(() => bech32m.decode(address as `${string}1${string}`, 90));
    enc = "bech32m";
  }
  if (!dec || dec.prefix !== hrp || dec.words.length < 1) return null;
  const version = dec.words[0];
  const program = tryDecode(() => bech32.fromWords(dec.words.slice(1)));
  if (!program) return null;
  if (version === 0) {
    if (enc !== "bech32") return null;
    if (program.length !== 20 && program.length !== 32) return null;
    return { version, program };
  }
  // Only taproot (v1, 32 bytes). Higher versions are valid per BIP-350 but unspendable-by-
  // anyone-safe today, so funds sent there are at risk: rejected.
  if (version === 1 && taproot && enc === "bech32m" && program.length === 32) return { version, program };
  return null;
}

export function utxoFamily(key: string, p: UtxoParams, accepts: string): AddressFamily {
  const versions = [...p.p2pkh, ...p.p2sh];
  return {
    key,
    level: "checksum",
    accepts,
    validate(address: string): boolean {
      if (typeof address !== "string" || address.length < 14 || address.length > 90) return false;
      // A base58 address can begin with the segwit prefix's letters too (Qtum's "Qc1..."
      // against "qc1"): one that is not segwit is still checked as base58.
      if (p.hrp && address.toLowerCase().startsWith(`${p.hrp}1`) && decodeSegwit(address, p.hrp, !!p.taproot) !== null) return true;
      if (address.length > 40) return false;
      const payload = b58checkDecode(address);
      if (!payload) return false;
      for (const v of versions) {
        if (payload.length === v.length + 20 && startsWith(payload, v)) return true;
      }
      return false;
    },
    generate(random: Random): string {
      const pick = random(1)[0];
      const kinds = p.hrp ? 3 : 2;
      const which = pick % kinds;
      const h = randomNonZero(random, 20);
      if (which === 2 && p.hrp) {
        return bech32.encode(p.hrp, [0, ...bech32.toWords(h)]);
      }
      const list = which === 1 && p.p2sh.length ? p.p2sh : p.p2pkh;
      return b58checkEncode(concat(Uint8Array.from(list[0]), h));
    },
  };
}

export const UTXO_PARAMS: Record<string, UtxoParams & { accepts: string }> = {
  btc: {
    p2pkh: [[0x00]],
    p2sh: [[0x05]],
    hrp: "bc",
    taproot: true,
    accepts: "P2PKH 1..., P2SH 3..., bech32 bc1q (v0), bech32m bc1p (taproot)",
  },
  ltc: {
    p2pkh: [[0x30]],
    p2sh: [[0x32]],
    hrp: "ltc",
    taproot: true,
    accepts: "L..., M... (P2SH v2), ltc1 (v0, taproot); legacy 3... P2SH and MWEB rejected",
  },
  doge: { p2pkh: [[0x1e]], p2sh: [[0x16]], accepts: "D... P2PKH, 9/A... P2SH" },
  dash: { p2pkh: [[0x4c]], p2sh: [[0x10]], accepts: "X... P2PKH, 7... P2SH" },
  dgb: { p2pkh: [[0x1e]], p2sh: [[0x3f]], hrp: "dgb", taproot: true, accepts: "D... P2PKH, S... P2SH, dgb1 (v0, taproot)" },
  rvn: { p2pkh: [[0x3c]], p2sh: [[0x7a]], accepts: "R... P2PKH, r... P2SH" },
  qtum: { p2pkh: [[0x3a]], p2sh: [[0x32]], hrp: "qc", taproot: true, accepts: "Q... P2PKH, M... P2SH, qc1 (v0, taproot)" },
  kmd: { p2pkh: [[0x3c]], p2sh: [[0x55]], accepts: "R... P2PKH, b... P2SH" },
  btg: { p2pkh: [[0x26]], p2sh: [[0x17]], hrp: "btg", taproot: false, accepts: "G... P2PKH, A... P2SH, btg1 (v0)" },
  bsv: { p2pkh: [[0x00]], p2sh: [], accepts: "1... P2PKH only (P2SH is not spendable after Genesis)" },
  zec: { p2pkh: [[0x1c, 0xb8]], p2sh: [[0x1c, 0xbd]], accepts: "transparent t1.../t3..., TEX (ZIP-320) tex1, Sapling zs1" },
  firo: { p2pkh: [[0x52]], p2sh: [[0x07]], accepts: "a... P2PKH, 3... P2SH (transparent)" },
  zen: { p2pkh: [[0x20, 0x89]], p2sh: [[0x20, 0x96]], accepts: "zn... P2PKH, zs... P2SH" },
  xvg: { p2pkh: [[0x1e]], p2sh: [[0x21]], accepts: "D... P2PKH, E... P2SH" },
  pivx: { p2pkh: [[0x1e]], p2sh: [[0x0d]], accepts: "D... P2PKH, 6... P2SH" },
};
