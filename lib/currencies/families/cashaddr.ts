// CashAddr (Bitcoin Cash spec "cashaddr.md"): prefix + ':' + base32 payload + 40-bit BCH
// checksum over (prefix low 5 bits, 0, payload). Also used by eCash ("ecash:") and, with its
// own version bytes, by Kaspa ("kaspa:"), and (other alphabet, see conflux.ts) by Conflux.
import type { AddressFamily } from "./types";
import { convertBits, makeBase32, type Random, randomNonZero } from "./util";

const CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
const B32 = makeBase32(CHARSET);

export function cashPolymod(values: ArrayLike<number>): bigint {
  // 40-bit arithmetic: use two 32-bit halves would be faster, BigInt keeps it obviously correct.
  let c = 1n;
  for (let i = 0; i < values.length; i++) {
    const c0 = c >> 35n;
    c = ((c & 0x07ffffffffn) << 5n) ^ BigInt(values[i]);
    if (c0 & 0x01n) c ^= 0x98f2bc8e61n;
    if (c0 & 0x02n) c ^= 0x79b76d99e2n;
    if (c0 & 0x04n) c ^= 0xf33e5fb3c4n;
    if (c0 & 0x08n) c ^= 0xae2eabe2a8n;
    if (c0 & 0x10n) c ^= 0x1e4f43e470n;
  }
  return c ^ 1n;
}

function prefixWords(prefix: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < prefix.length; i++) out.push(prefix.charCodeAt(i) & 31);
  out.push(0);
  return out;
}

export function cashChecksumWords(prefix: string, payload: number[]): number[] {
  const mod = cashPolymod([...prefixWords(prefix), ...payload, 0, 0, 0, 0, 0, 0, 0, 0]);
  const out: number[] = [];
  for (let i = 0; i < 8; i++) out.push(Number((mod >> BigInt(5 * (7 - i))) & 31n));
  return out;
}

/** Decode "prefix:payload" (prefix optional when `prefixOptional`), verify checksum, return bytes. */
export function cashDecode(address: string, prefix: string, prefixOptional: boolean, charset = B32): Uint8Array | null {
  if (address.length < 10 || address.length > 140) return null;
  const lower = address.toLowerCase();
  if (address !== lower && address !== address.toUpperCase()) return null; // mixed case
  let body: string;
  const colon = lower.indexOf(":");
  if (colon >= 0) {
    if (lower.slice(0, colon) !== prefix) return null;
    body = lower.slice(colon + 1);
  } else {
    if (!prefixOptional) return null;
    body = lower;
  }
  const words = charset.toWords(body);
  if (!words || words.length < 9) return null;
  if (cashPolymod([...prefixWords(prefix), ...words]) !== 0n) return null;
  const data = convertBits(words.slice(0, -8), 5, 8, false);
  return data ? Uint8Array.from(data) : null;
}

export function cashEncode(prefix: string, data: Uint8Array, charset = B32): string {
  const words = convertBits(data, 8, 5, true)!;
  return `${prefix}:${charset.fromWords([...words, ...cashChecksumWords(prefix, words)])}`;
}

// Size bits of the version byte -> hash length (cashaddr.md).
const SIZES = [20, 24, 28, 32, 40, 48, 56, 64];

/**
 * BCH/eCash: version byte = type<<3 | size. Types 0 (P2PKH) and 1 (P2SH); BCH also
 * 2/3 (CashTokens-aware P2PKH/P2SH, CHIP-2022-02). Sizes: 160-bit, plus 256-bit P2SH32 on BCH.
 */
export function cashaddrFamily(key: string, prefix: string, types: number[], sizes: number[], accepts: string): AddressFamily {
  return {
    key,
    level: "checksum",
    accepts,
    validate(address: string): boolean {
      if (typeof address !== "string") return false;
      const data = cashDecode(address, prefix, true);
      if (!data || data.length < 1) return false;
      const v = data[0];
      if (v & 0x80) return false;
      const type = (v >> 3) & 0x0f;
      const size = SIZES[v & 7];
      if (!types.includes(type)) return false;
      if (data.length - 1 !== size || !sizes.includes(size)) return false;
      // P2PKH is always 160-bit; 256-bit hashes only for script types.
      if (size !== 20 && (type === 0 || type === 2)) return false;
      return true;
    },
    generate(random: Random): string {
      const type = random(1)[0] & 1; // P2PKH or P2SH
      const h = randomNonZero(random, 20);
      const data = new Uint8Array(21);
      data[0] = type << 3;
      data.set(h, 1);
      return cashEncode(prefix, data);
    },
  };
}

/** Kaspa: version byte 0 = Schnorr pubkey (32), 1 = ECDSA pubkey (33), 8 = script hash (32). Prefix required. */
export const kaspaFamily: AddressFamily = {
  key: "cashaddr:kaspa",
  level: "checksum",
  accepts: "kaspa:q... (Schnorr P2PK), kaspa:qy... (ECDSA P2PK), kaspa:p... (P2SH); kaspatest/kaspadev/kaspasim rejected",
  validate(address: string): boolean {
    if (typeof address !== "string") return false;
    const data = cashDecode(address, "kaspa", false);
    if (!data || data.length < 1) return false;
    const v = data[0];
    const n = data.length - 1;
    return (v === 0 && n === 32) || (v === 1 && n === 33) || (v === 8 && n === 32);
  },
  generate(random: Random): string {
    const data = new Uint8Array(33);
    data[0] = random(1)[0] & 1 ? 8 : 0;
    data.set(randomNonZero(random, 32), 1);
    return cashEncode("kaspa", data);
  },
};
