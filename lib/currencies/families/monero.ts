// Monero: base58 in 8-byte blocks (base58xmr), varint network byte, keys, keccak-256 checksum.
// Mainnet: 18 standard (4...), 19 integrated (4..., 106 chars), 42 subaddress (8...).
// Testnet (53/54/63) and stagenet (24/25/36) are rejected.
import { keccak_256 } from "@noble/hashes/sha3.js";
import { base58xmr } from "@scure/base";
import type { AddressFamily } from "./types";
import { bytesEqual, concat, isBase58, type Random, randomNonZero, tryDecode } from "./util";

export const moneroFamily: AddressFamily = {
  key: "monero",
  level: "checksum",
  accepts: "standard 4... (95), subaddress 8... (95), integrated 4... (106); testnet/stagenet rejected",
  validate(address: string): boolean {
    if (typeof address !== "string" || (address.length !== 95 && address.length !== 106)) return false;
    if (!isBase58(address)) return false;
    const raw = tryDecode(() => base58xmr.decode(address));
    if (!raw) return false;
    const body = raw.subarray(0, raw.length - 4);
    if (!bytesEqual(keccak_256(body), raw.subarray(raw.length - 4), 4)) return false;
    const tag = body[0];
    if (raw.length === 69) return tag === 18 || tag === 42;
    if (raw.length === 77) return tag === 19;
    return false;
  },
  generate(random: Random): string {
    const tag = random(1)[0] & 1 ? 42 : 18;
    const body = concat(Uint8Array.of(tag), randomNonZero(random, 32), randomNonZero(random, 32));
    return base58xmr.encode(concat(body, keccak_256(body).subarray(0, 4)));
  },
};
