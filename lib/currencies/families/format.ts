// Address formats that have no checksum: the exact format is the correct check.
import { base58 } from "@scure/base";
import type { AddressFamily } from "./types";
import { b58decode, isAllZero, type Random, randomNonZero, toHex } from "./util";

function regexFamily(
  key: string,
  re: RegExp,
  accepts: string,
  generate: (r: Random) => string,
  extra?: (s: string) => boolean,
): AddressFamily {
  return {
    key,
    level: "format",
    accepts,
    validate(address: string): boolean {
      if (typeof address !== "string" || !re.test(address)) return false;
      return extra ? extra(address) : true;
    },
    generate,
  };
}

// An XDC address (xdc + 40 hex) can also be valid base58/base64url of 32 bytes.
const XDC_RE = /^xdc[0-9a-fA-F]{40}$/;

// Solana (and SPL token accounts/owners): base58 of a 32-byte public key, 32..44 chars.
export const solanaFamily: AddressFamily = {
  key: "solana",
  level: "format",
  accepts: "base58, 32..44 chars, decodes to exactly 32 bytes; all-zero and all-lower-case (bech32 look-alike) strings rejected",
  validate(address: string): boolean {
    if (typeof address !== "string" || address.length < 32 || address.length > 44) return false;
    // A random key renders without any upper-case letter with probability ~6e-7; a lower-case
    // bech32 address (osmo1..., 43 chars) can be valid base58 of 32 bytes: reject those.
    if (!/[A-Z]/.test(address) || XDC_RE.test(address)) return false;
    const raw = b58decode(address);
    return !!raw && raw.length === 32 && !isAllZero(raw);
  },
  generate(random: Random): string {
    for (;;) {
      const s = base58.encode(randomNonZero(random, 32));
      if (/[A-Z]/.test(s)) return s;
    }
  },
};

// Aptos (AIP-40 long form), Sui, IOTA (Move-based since IOTA Rebased): 0x + 64 hex.
export const hex32Family = regexFamily(
  "hex32",
  /^0x[0-9a-fA-F]{64}$/,
  "0x + 64 hex (Move account address, long form); zero address rejected",
  (r) => `0x${toHex(randomNonZero(r, 32))}`,
  (s) => !/^0x0+$/.test(s),
);

// EOSIO account names (EOS, WAX, Telos): 1..12 chars of [a-z1-5.], not ending in '.';
// a 13th char is only allowed from [a-j1-5].
export const eosioFamily = regexFamily(
  "eosio-account",
  /^(?:[a-z1-5]|[a-z1-5][a-z1-5.]{0,10}[a-z1-5]|[a-z1-5][a-z1-5.]{11}[a-j1-5])$/,
  "EOSIO account name: [a-z1-5.], up to 12 chars (13th [a-j1-5]), no trailing dot",
  (r) => {
    const alpha = "abcdefghijklmnopqrstuvwxyz12345";
    let s = "";
    for (const b of r(12)) s += alpha[b % 31];
    return s;
  },
);

// Hedera: shard.realm.num account id on mainnet shard 0 realm 0.
export const hederaFamily = regexFamily(
  "hedera-account",
  /^0\.0\.[1-9][0-9]{0,18}$/,
  "0.0.N account id (N >= 1, int64)",
  (r) => {
    const b = r(4);
    const n = 1000 + ((((b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]) >>> 0) % 9_000_000);
    return `0.0.${n}`;
  },
  (s) => BigInt(s.slice(4)) <= 9223372036854775807n,
);

// NEAR: implicit (64 lower hex), ETH-implicit (0x + 40 lower hex), or named accounts
// (2..64 chars, nearcore's account-id rules). *.testnet and *.betanet are rejected.
const NEAR_NAMED = /^(([a-z\d]+[-_])*[a-z\d]+\.)*([a-z\d]+[-_])*[a-z\d]+$/;
export const nearFamily = regexFamily(
  "near-account",
  /^[a-z\d._-]{2,64}$/,
  "implicit 64-hex, ETH-implicit 0x + 40 hex, or named account (nearcore rules); .testnet/.betanet and dot-less names of 32+ chars rejected",
  (r) => toHex(randomNonZero(r, 32)),
  (s) => {
    if (/^[0-9a-f]{64}$/.test(s) || /^0x[0-9a-f]{40}$/.test(s)) return true;
    if (s.startsWith("0x")) return false;
    if (!NEAR_NAMED.test(s)) return false;
    if (s.endsWith(".testnet") || s === "testnet" || s.endsWith(".betanet")) return false;
    // Dot-less (top-level) names of 32+ chars are legal but are exactly what other chains'
    // addresses look like (bech32, hx..., f1...): rejected to stop cross-chain pastes.
    if (!s.includes(".") && s.length >= 32) return false;
    return true;
  },
);

// ICON: hx + 40 lower-case hex (EOA).
export const iconFamily = regexFamily(
  "icon",
  /^hx[0-9a-f]{40}$/,
  "hx + 40 lower-case hex (EOA)",
  (r) => `hx${toHex(randomNonZero(r, 20))}`,
);

// Casper: public key hex, 01 + 32-byte ed25519 key or 02 + 33-byte secp256k1 key.
export const casperFamily = regexFamily(
  "casper",
  /^(01[0-9a-fA-F]{64}|02(02|03)[0-9a-fA-F]{64})$/,
  "public key hex: 01 + ed25519 (64 hex) or 02 + compressed secp256k1 (66 hex)",
  (r) => `01${toHex(randomNonZero(r, 32))}`,
);

// Arweave: base64url of a 32-byte SHA-256 (43 chars, canonical last char).
export const arweaveFamily = regexFamily(
  "arweave",
  /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/,
  "43 chars base64url (32 bytes); all-lower-case strings (bech32 look-alikes) rejected",
  (r) => {
    const b = randomNonZero(r, 32);
    const A = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let s = "";
    let acc = 0;
    let bits = 0;
    for (const x of b) {
      acc = (acc << 8) | x;
      bits += 8;
      while (bits >= 6) {
        bits -= 6;
        s += A[(acc >> bits) & 63];
      }
      acc &= (1 << bits) - 1;
    }
    if (bits > 0) s += A[(acc << (6 - bits)) & 63];
    return /[A-Z_-]/.test(s) ? s : `A${s.slice(1)}`;
  },
  // A random SHA-256 in base64url has an upper-case letter or -/_ with probability 1 - 1e-11;
  // without one it is far more likely a lower-case bech32 address (e.g. ltc1q..., 43 chars).
  (s) => /[A-Z_-]/.test(s) && !XDC_RE.test(s), // not an XDC address either
);

// Kadena: k: + 64 hex (single-key principal account).
export const kadenaFamily = regexFamily(
  "kadena",
  /^k:[0-9a-f]{64}$/,
  "k: + 64 lower-case hex (principal account)",
  (r) => `k:${toHex(randomNonZero(r, 32))}`,
);

// Graphene account names (Steem, Hive): 3..16 chars, dot-separated segments each starting
// with a letter, ending with a letter or digit, >= 3 chars, no "--".
export const grapheneFamily = regexFamily(
  "graphene-account",
  /^(?=.{3,16}$)[a-z][a-z0-9-]{1,}[a-z0-9](\.[a-z][a-z0-9-]{1,}[a-z0-9])*$/,
  "Steem/Hive account name (3..16 chars, segments >= 3, start with a letter)",
  (r) => {
    const a = "abcdefghijklmnopqrstuvwxyz";
    let s = "";
    for (const b of r(10)) s += a[b % 26];
    return s;
  },
  (s) => !s.includes("--"),
);

// Starknet: 0x + up to 64 hex, a felt below ADDR_BOUND = 2^251 - 256 (starknet.js
// validateAndParseAddress, the bound of contract addresses). Values below 2^160 are refused: a
// real Starknet address is a Pedersen/Poseidon hash and lands there with probability 2^-91, but
// every Ethereum address does, and funds sent to one on Starknet are lost.
const STARKNET_RE = /^0x[0-9a-fA-F]{1,64}$/;
const STARKNET_ADDR_BOUND = (1n << 251n) - 256n;
const EVM_BOUND = 1n << 160n;
export const starknetFamily: AddressFamily = {
  key: "starknet",
  level: "format",
  accepts: "0x + up to 64 hex, 2^160 <= value < 2^251 - 256; Ethereum-sized values (below 2^160) rejected",
  validate(address: string): boolean {
    if (typeof address !== "string" || !STARKNET_RE.test(address)) return false;
    const v = BigInt(address);
    return v >= EVM_BOUND && v < STARKNET_ADDR_BOUND;
  },
  rejectionReason(address: string): string | null {
    if (typeof address !== "string" || !STARKNET_RE.test(address)) return null;
    const v = BigInt(address);
    // 0x + 40 hex, or a value of Ethereum size (top 32 of 160 bits set, as in all but 2^-32 of them)
    if (/^0x[0-9a-fA-F]{40}$/.test(address) || (v < EVM_BOUND && v >= 1n << 128n)) {
      return "This looks like an Ethereum (EVM) address, not a Starknet one; funds sent to it on Starknet would be lost.";
    }
    return null;
  },
  generate(r: Random): string {
    const b = randomNonZero(r, 32);
    b[0] &= 0x03; // < 2^250
    b[1] |= 0x01; // >= 2^240
    return `0x${toHex(b)}`;
  },
};
