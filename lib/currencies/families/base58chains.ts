// Chains whose addresses are base58 with a fixed version prefix and a 4-byte hash checksum.

import { weierstrass } from "@noble/curves/abstract/weierstrass.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { blake256 } from "@noble/hashes/blake1.js";
import { blake2b } from "@noble/hashes/blake2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { base58 } from "@scure/base";
import type { AddressFamily } from "./types";
import { b58checkDecode, b58checkEncode, b58decode, bytesEqual, concat, type Random, randomNonZero, startsWith, tryDecode } from "./util";

/** Base58Check (double SHA-256 unless `hash` given): one of `prefixes` + `len` bytes. */
export function base58VersionFamily(
  key: string,
  prefixes: number[][],
  len: number,
  accepts: string,
  hash?: (d: Uint8Array) => Uint8Array,
  check?: (payload: Uint8Array) => boolean,
  makeBody?: (random: Random) => Uint8Array,
): AddressFamily {
  return {
    key,
    level: "checksum",
    accepts,
    validate(address: string): boolean {
      if (typeof address !== "string" || address.length < 20 || address.length > 64) return false;
      const p = b58checkDecode(address, hash);
      if (!p) return false;
      for (const pre of prefixes) {
        if (p.length === pre.length + len && startsWith(p, pre)) return check ? check(p.subarray(pre.length)) : true;
      }
      return false;
    },
    generate(random: Random): string {
      const body = makeBody ? makeBody(random) : randomNonZero(random, len);
      return b58checkEncode(concat(Uint8Array.from(prefixes[0]), body), hash);
    },
  };
}

// TRON: 0x41 + 20 bytes, double SHA-256 (same as TronWeb isAddress).
export const tronFamily = base58VersionFamily("tron", [[0x41]], 20, "T... (base58check, version 0x41)");

// Tezos: tz1/tz2/tz3/tz4 implicit accounts and KT1 originated contracts (tezos b58_prefix).
export const tezosFamily = base58VersionFamily(
  "tezos",
  [
    [6, 161, 159], // tz1 ed25519
    [6, 161, 161], // tz2 secp256k1
    [6, 161, 164], // tz3 p256
    [6, 161, 166], // tz4 bls
    [2, 90, 121], // KT1
  ],
  20,
  "tz1/tz2/tz3/tz4/KT1 (base58check with 3-byte prefix)",
);

// NEO N3: version 0x35 + script hash (N...). NEO legacy (A..., version 0x17) is retired.
export const neo3Family = base58VersionFamily("neo3", [[0x35]], 20, "N... (N3, base58check version 0x35); legacy NEO2 A... rejected");

// Ontology: version 0x17 + 20 bytes (A...).
export const ontologyFamily = base58VersionFamily("ontology", [[0x17]], 20, "A... (base58check version 0x17)");

// Mina: version 0xcb, then 0x01 0x01, x coordinate (32 bytes, little-endian), isOdd (1): B62q...
// (55 chars). The key must be a point of Pallas (y^2 = x^3 + 5 over Fp, zcash/pasta; the curve
// mina-signer and o1js use): mina-signer refuses a key whose x has no y ("not a valid group
// element"), so such an address could never be paid. @noble/curves has no ready-made Pallas, so
// the curve is built from its published parameters with noble's generic Weierstrass code.
const PALLAS_P = 0x40000000000000000000000000000000224698fc094cf91b992d30ed00000001n;
const pallas = weierstrass({
  p: PALLAS_P,
  n: 0x40000000000000000000000000000000224698fc0994a8dd8c46eb2100000001n,
  h: 1n,
  a: 0n,
  b: 5n,
  Gx: PALLAS_P - 1n, // the pasta generator (-1, 2)
  Gy: 2n,
});

/** True when the 32-byte little-endian x (with the parity byte) decodes to a point of Pallas. */
function minaKeyIsPoint(xLittleEndian: Uint8Array, isOdd: number): boolean {
  if (isOdd !== 0 && isOdd !== 1) return false;
  const compressed = concat(Uint8Array.of(2 + isOdd), Uint8Array.from(xLittleEndian).reverse());
  return tryDecode(() => pallas.fromBytes(compressed)) !== null;
}

export const minaFamily = base58VersionFamily(
  "mina",
  [[0xcb, 0x01, 0x01]],
  33,
  "B62q... (base58check version 0xcb, compressed public key on the Pallas curve)",
  undefined,
  (p) => minaKeyIsPoint(p.subarray(0, 32), p[32]),
  (random) => {
    // A random x below 2^254 (< p), moved up until x^3 + 5 is a square (about two steps; no
    // further draws, so even a degenerate random source ends). Pallas has prime order, so every
    // such point is a valid public key.
    const b = randomNonZero(random, 33);
    b[31] &= 0x3f;
    b[32] &= 1;
    while (!minaKeyIsPoint(b.subarray(0, 32), b[32])) {
      // little-endian x += 1 (x stays below p: it started below 2^254)
      for (let i = 0; i < 32; i++) if (++b[i] !== 256) break;
    }
    return b;
  },
);

// Decred: 2-byte network ids, double BLAKE-256 checksum. Ds = P2PKH secp256k1, Dc = P2SH.
const blake256d = (d: Uint8Array) => blake256(blake256(d));
export const decredFamily = base58VersionFamily(
  "decred",
  [
    [0x07, 0x3f], // Ds
    [0x07, 0x1a], // Dc
  ],
  20,
  "Ds... (P2PKH) and Dc... (P2SH), double BLAKE-256 checksum; testnet Ts/Tc rejected",
  blake256d,
);

// Waves: base58( 0x01, chainId 'W', 20-byte hash, keccak256(blake2b256(first 22))[0..4] ).
const wavesHash = (d: Uint8Array) => keccak_256(blake2b(d, { dkLen: 32 }));
export const wavesFamily: AddressFamily = {
  key: "waves",
  level: "checksum",
  accepts: "3P... (version 1, chain 'W', keccak(blake2b) checksum); testnet 'T' rejected",
  validate(address: string): boolean {
    if (typeof address !== "string" || address.length !== 35) return false;
    const raw = b58decode(address);
    if (raw?.length !== 26 || raw[0] !== 1 || raw[1] !== 0x57) return false;
    return bytesEqual(wavesHash(raw.subarray(0, 22)), raw.subarray(22), 4);
  },
  generate(random: Random): string {
    const body = concat(Uint8Array.of(1, 0x57), randomNonZero(random, 20));
    return base58.encode(concat(body, wavesHash(body).subarray(0, 4)));
  },
};

// Ergo: base58( prefix = network(0x00 mainnet) + type(1 P2PK, 2 P2SH, 3 P2S), content,
// blake2b256(prefix+content)[0..4] ). A P2PK content is a compressed secp256k1 point: Ergo's
// address parser (sigma-rust, ergo-lib) refuses a key that is not on the curve, so such an
// address can never be paid.
const ergoHash = (d: Uint8Array) => blake2b(d, { dkLen: 32 });
export const ergoFamily: AddressFamily = {
  key: "ergo",
  level: "checksum",
  accepts:
    "9... P2PK (compressed secp256k1 key on the curve), 8... P2SH (24 bytes), P2S scripts; blake2b256 checksum; testnet (0x10 network) rejected",
  validate(address: string): boolean {
    if (typeof address !== "string" || address.length < 30 || address.length > 4000) return false;
    const raw = b58decode(address);
    if (!raw || raw.length < 6) return false;
    const body = raw.subarray(0, raw.length - 4);
    if (!bytesEqual(ergoHash(body), raw.subarray(raw.length - 4), 4)) return false;
    const prefix = body[0];
    if (prefix === 0x01) return body.length === 34 && tryDecode(() => secp256k1.Point.fromBytes(body.subarray(1))) !== null;
    if (prefix === 0x02) return body.length === 25;
    if (prefix === 0x03) return body.length > 1;
    return false;
  },
  generate(random: Random): string {
    // a real key pair's public key: k*G for a random scalar k in [1, n)
    let k = 0n;
    for (const b of random(48)) k = (k << 8n) | BigInt(b);
    const n = secp256k1.Point.CURVE().n;
    const key = secp256k1.Point.BASE.multiply((k % (n - 1n)) + 1n).toBytes(true);
    const body = concat(Uint8Array.of(0x01), key);
    return base58.encode(concat(body, ergoHash(body).subarray(0, 4)));
  },
};
