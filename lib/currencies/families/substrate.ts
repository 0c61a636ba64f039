// SS58 (Substrate): base58( prefix(1-2 bytes) || account-id(32) || checksum(2) ), checksum =
// blake2b-512("SS58PRE" || prefix || account)[0..2]. The network prefix must match exactly, so
// a Kusama address (prefix 2) is not a Polkadot address (prefix 0). Same algorithm as
// @polkadot/util-crypto decodeAddress/checkAddress.
import { blake2b } from "@noble/hashes/blake2.js";
import { base58 } from "@scure/base";
import type { AddressFamily } from "./types";
import { b58decode, bytesEqual, concat, type Random, randomNonZero } from "./util";

const SS58PRE = new TextEncoder().encode("SS58PRE");

function prefixBytes(ident: number): Uint8Array {
  if (ident < 64) return Uint8Array.of(ident);
  // two-byte form (ss58-registry / polkadot-js encodeAddress)
  return Uint8Array.of(((ident & 0xfc) >> 2) | 0x40, (ident >> 8) | ((ident & 0x03) << 6));
}

export function decodeSs58(address: string): { ident: number; account: Uint8Array } | null {
  if (address.length < 46 || address.length > 50) return null;
  const raw = b58decode(address);
  if (!raw) return null;
  let ident: number;
  let plen: number;
  if (raw[0] < 64) {
    ident = raw[0];
    plen = 1;
  } else if (raw[0] < 128) {
    ident = ((raw[0] & 0x3f) << 2) | (raw[1] >> 6) | ((raw[1] & 0x3f) << 8);
    plen = 2;
  } else return null;
  if (raw.length !== plen + 32 + 2) return null; // 32-byte account ids only
  const body = raw.subarray(0, plen + 32);
  const sum = blake2b(concat(SS58PRE, body), { dkLen: 64 });
  if (!bytesEqual(sum, raw.subarray(plen + 32), 2)) return null;
  return { ident, account: raw.subarray(plen, plen + 32) };
}

export function ss58Family(ident: number, accepts: string): AddressFamily {
  const pre = prefixBytes(ident);
  return {
    key: `ss58:${ident}`,
    level: "checksum",
    accepts,
    validate(address: string): boolean {
      if (typeof address !== "string") return false;
      const d = decodeSs58(address);
      return !!d && d.ident === ident;
    },
    generate(random: Random): string {
      const body = concat(pre, randomNonZero(random, 32));
      const sum = blake2b(concat(SS58PRE, body), { dkLen: 64 });
      return base58.encode(concat(body, sum.subarray(0, 2)));
    },
  };
}
