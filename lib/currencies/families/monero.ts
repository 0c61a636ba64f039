// Monero: base58 in 8-byte blocks (base58xmr), varint network byte, keys, keccak-256 checksum.
// Mainnet: 18 standard (4...), 19 integrated (4..., 106 chars), 42 subaddress (8...).
// Testnet (53/54/63) and stagenet (24/25/36) are rejected.
//
// Both public keys (spend, view) must decode as ed25519 points: Monero wallets run
// crypto::check_key (ge_frombytes_vartime) on them before paying and refuse otherwise, so an
// address with a valid checksum but a non-point key can never be paid out.
import { ed25519 } from "@noble/curves/ed25519.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { base58xmr } from "@scure/base";
import type { AddressFamily } from "./types";
import { bytesEqual, concat, isBase58, type Random, tryDecode } from "./util";

/**
 * crypto::check_key: a canonical ed25519 point encoding. noble's strict (non-ZIP-215) decoding
 * rejects y >= p and x = 0 with the sign bit set, exactly as Monero's ge_frombytes_vartime does.
 */
function isPoint(key: Uint8Array): boolean {
  return tryDecode(() => ed25519.Point.fromBytes(key, false)) !== null;
}

export const moneroFamily: AddressFamily = {
  key: "monero",
  level: "checksum",
  accepts: "standard 4... (95), subaddress 8... (95), integrated 4... (106); both keys ed25519 points; testnet/stagenet rejected",
  validate(address: string): boolean {
    if (typeof address !== "string" || (address.length !== 95 && address.length !== 106)) return false;
    if (!isBase58(address)) return false;
    const raw = tryDecode(() => base58xmr.decode(address));
    if (!raw) return false;
    const body = raw.subarray(0, raw.length - 4);
    if (!bytesEqual(keccak_256(body), raw.subarray(raw.length - 4), 4)) return false;
    const tag = body[0];
    const tagOk = raw.length === 69 ? tag === 18 || tag === 42 : raw.length === 77 && tag === 19;
    return tagOk && isPoint(body.subarray(1, 33)) && isPoint(body.subarray(33, 65));
  },
  generate(random: Random): string {
    // Real key pairs: k*G for two random scalars, as a wallet derives them (prime-order subgroup).
    const key = () => ed25519.Point.BASE.multiply(scalar(random)).toBytes();
    const tag = random(1)[0] & 1 ? 42 : 18;
    const body = concat(Uint8Array.of(tag), key(), key());
    return base58xmr.encode(concat(body, keccak_256(body).subarray(0, 4)));
  },
};

/** A scalar in [1, n) from 64 random bytes (reduction bias below 2^-250). */
function scalar(random: Random): bigint {
  const n = ed25519.Point.CURVE().n;
  let x = 0n;
  for (const b of random(64)) x = (x << 8n) | BigInt(b);
  return (x % (n - 1n)) + 1n;
}
