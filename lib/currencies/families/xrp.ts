// XRP Ledger: classic addresses (base58 with the Ripple alphabet, version 0x00, double
// SHA-256 checksum) and X-addresses (XLS-5d: 0x05 0x44 mainnet prefix, 20-byte account,
// tag flag, 8-byte tag; testnet prefix 0x04 0x93 rejected). Same format as ripple-address-codec.
import { base58xrp } from "@scure/base";
import type { AddressFamily } from "./types";
import { bytesEqual, concat, isAllZero, type Random, randomNonZero, sha256d, tryDecode } from "./util";

const XRP_ALPHABET_RE = /^[rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz]+$/;

function decodeChecked(s: string): Uint8Array | null {
  if (!XRP_ALPHABET_RE.test(s)) return null;
  const raw = tryDecode(() => base58xrp.decode(s));
  if (!raw || raw.length < 5) return null;
  const payload = raw.subarray(0, raw.length - 4);
  if (!bytesEqual(sha256d(payload), raw.subarray(raw.length - 4), 4)) return null;
  return payload;
}

export function decodeXrpClassic(address: string): Uint8Array | null {
  if (address.length < 25 || address.length > 35 || address[0] !== "r") return null;
  const p = decodeChecked(address);
  if (p?.length !== 21 || p[0] !== 0x00) return null;
  return p.subarray(1);
}

/** Returns { account, tag } for a mainnet X-address, null otherwise. */
export function decodeXAddress(address: string): { account: Uint8Array; tag: number | null } | null {
  if (address.length !== 47 || address[0] !== "X") return null;
  const p = decodeChecked(address);
  if (p?.length !== 31 || p[0] !== 0x05 || p[1] !== 0x44) return null;
  const flag = p[22];
  const tagBytes = p.subarray(23, 31);
  // bytes 27..30 are reserved (must be zero); tag is 32-bit little-endian
  if (tagBytes[4] | tagBytes[5] | tagBytes[6] | tagBytes[7]) return null;
  const tag = (tagBytes[0] | (tagBytes[1] << 8) | (tagBytes[2] << 16)) + tagBytes[3] * 0x1000000;
  if (flag === 0) return tag === 0 ? { account: p.subarray(2, 22), tag: null } : null;
  if (flag === 1) return { account: p.subarray(2, 22), tag };
  return null;
}

export const xrpFamily: AddressFamily = {
  key: "xrp",
  level: "checksum",
  accepts: "classic r... (base58 Ripple alphabet + double-SHA256) and mainnet X-addresses; testnet T... and account zero rejected",
  validate(address: string): boolean {
    if (typeof address !== "string") return false;
    const account = address[0] === "X" ? decodeXAddress(address)?.account : decodeXrpClassic(address);
    return !!account && !isAllZero(account);
  },
  generate(random: Random): string {
    const payload = concat(Uint8Array.of(0), randomNonZero(random, 20));
    return base58xrp.encode(concat(payload, sha256d(payload).subarray(0, 4)));
  },
};
