// Other checksummed formats: NEM, Nano, Algorand, ICP, Filecoin, Stacks (c32check), Siacoin,
// Nervos CKB, Conflux (CIP-37), Zcash (transparent + TEX + Sapling).
import { blake2b } from "@noble/hashes/blake2.js";
import { sha512_256 } from "@noble/hashes/sha2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { base32nopad, bech32m } from "@scure/base";
import { decodeBech } from "./bech32";
import { cashPolymod } from "./cashaddr";
import type { AddressFamily } from "./types";
import { bytesEqual, concat, convertBits, crc32, fromHex, makeBase32, type Random, randomNonZero, sha256d, toHex, tryDecode } from "./util";
import { UTXO_PARAMS, utxoFamily } from "./utxo";

const B32_UPPER = /^[A-Z2-7]+$/;

// ---------------------------------------------------------------- NEM (NIS1)
// base32( 0x68 'N' network, ripemd160(sha3(pub)) 20 bytes, keccak256(first 21)[0..4] ).
// Display form with dashes (6-char groups) is accepted too. Testnet 0x98 / Mijin 0x60 rejected.
export const nemFamily: AddressFamily = {
  key: "nem",
  level: "checksum",
  accepts: "N... (40 chars base32, optionally dashed in 6-char groups), keccak-256 checksum; testnet T... rejected",
  validate(address: string): boolean {
    if (typeof address !== "string") return false;
    let s = address;
    if (s.length === 46) {
      if (!/^[A-Z2-7]{6}(-[A-Z2-7]{6}){5}-[A-Z2-7]{4}$/.test(s)) return false;
      s = s.replace(/-/g, "");
    }
    if (s.length !== 40 || !B32_UPPER.test(s)) return false;
    const raw = tryDecode(() => base32nopad.decode(s));
    if (raw?.length !== 25 || raw[0] !== 0x68) return false;
    return bytesEqual(keccak_256(raw.subarray(0, 21)), raw.subarray(21), 4);
  },
  generate(random: Random): string {
    const body = concat(Uint8Array.of(0x68), randomNonZero(random, 20));
    return base32nopad.encode(concat(body, keccak_256(body).subarray(0, 4)));
  },
};

// ---------------------------------------------------------------- Nano
// nano_/xrb_ + 52 chars (4 zero bits + 256-bit key) + 8 chars blake2b-40(key) reversed.
const NANO = makeBase32("13456789abcdefghijkmnopqrstuwxyz");
const NANO_RE = /^(nano|xrb)_[13][13456789abcdefghijkmnopqrstuwxyz]{59}$/;
function nanoChecksum(key: Uint8Array): Uint8Array {
  return blake2b(key, { dkLen: 5 }).reverse();
}
function nanoKeyFromWords(words: number[]): Uint8Array | null {
  let n = 0n;
  for (const w of words) n = (n << 5n) | BigInt(w);
  if (n >> 256n) return null; // the 4 leading pad bits must be zero
  const out = new Uint8Array(32);
  for (let i = 31; i >= 0; i--) {
    out[i] = Number(n & 0xffn);
    n >>= 8n;
  }
  return out;
}
function nanoWordsFromKey(key: Uint8Array): number[] {
  let n = 0n;
  for (const b of key) n = (n << 8n) | BigInt(b);
  const words = new Array<number>(52);
  for (let i = 51; i >= 0; i--) {
    words[i] = Number(n & 31n);
    n >>= 5n;
  }
  return words;
}
export const nanoFamily: AddressFamily = {
  key: "nano",
  level: "checksum",
  accepts: "nano_/xrb_ + 60 chars, blake2b-40 checksum",
  validate(address: string): boolean {
    if (typeof address !== "string" || !NANO_RE.test(address)) return false;
    const body = address.slice(address.indexOf("_") + 1);
    const keyWords = NANO.toWords(body.slice(0, 52));
    const sumWords = NANO.toWords(body.slice(52));
    if (!keyWords || !sumWords) return false;
    const key = nanoKeyFromWords(keyWords);
    const sum = convertBits(sumWords, 5, 8, false);
    if (!key || !sum) return false;
    return bytesEqual(nanoChecksum(key), Uint8Array.from(sum), 5);
  },
  generate(random: Random): string {
    const key = randomNonZero(random, 32);
    const sumWords = convertBits(nanoChecksum(key), 8, 5, false)!;
    return `nano_${NANO.fromWords(nanoWordsFromKey(key))}${NANO.fromWords(sumWords)}`;
  },
};

// ---------------------------------------------------------------- Algorand
// base32( 32-byte ed25519 key, sha512/256(key)[28..32] ), 58 chars, no padding.
export const algorandFamily: AddressFamily = {
  key: "algorand",
  level: "checksum",
  accepts: "58 chars base32 (public key + SHA-512/256 checksum)",
  validate(address: string): boolean {
    if (typeof address !== "string" || address.length !== 58 || !B32_UPPER.test(address)) return false;
    const raw = decodeB32Canonical(address, 36);
    if (!raw) return false;
    const key = raw.subarray(0, 32);
    return bytesEqual(sha512_256(key).subarray(28), raw.subarray(32), 4);
  },
  generate(random: Random): string {
    const key = randomNonZero(random, 32);
    return encodeB32(concat(key, sha512_256(key).subarray(28)));
  },
};

const RFC_B32 = makeBase32("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567");
function decodeB32Canonical(s: string, nbytes: number): Uint8Array | null {
  const words = RFC_B32.toWords(s);
  if (!words) return null;
  const bytes = convertBits(words, 5, 8, false);
  if (!bytes || bytes.length !== nbytes) return null;
  return Uint8Array.from(bytes);
}
function encodeB32(data: Uint8Array): string {
  return RFC_B32.fromWords(convertBits(data, 8, 5, true)!);
}

// ---------------------------------------------------------------- ICP
// Account identifier: 32 bytes hex = CRC32 (big-endian) || sha224(...) (28 bytes).
export const icpFamily: AddressFamily = {
  key: "icp-account",
  level: "checksum",
  accepts: "64-hex account identifier (CRC32 + 28-byte hash)",
  validate(address: string): boolean {
    if (typeof address !== "string" || address.length !== 64) return false;
    const raw = fromHex(address);
    if (!raw) return false;
    const c = crc32(raw.subarray(4));
    return ((raw[0] << 24) | (raw[1] << 16) | (raw[2] << 8) | raw[3]) >>> 0 === c;
  },
  generate(random: Random): string {
    const hash = randomNonZero(random, 28);
    const c = crc32(hash);
    return toHex(concat(Uint8Array.of(c >>> 24, (c >> 16) & 255, (c >> 8) & 255, c & 255), hash));
  },
};

// ---------------------------------------------------------------- Filecoin
// f1 (secp256k1, 20), f2 (actor, 20), f3 (BLS, 48), f4 delegated (f410f: EVM 20 bytes);
// base32 lowercase no padding of payload || blake2b-32(protocol || payload).
// f0 ID addresses have no checksum and are not accepted; testnet t... rejected.
const FIL_B32 = makeBase32("abcdefghijklmnopqrstuvwxyz234567");
function filChecksum(prefix: Uint8Array, payload: Uint8Array): Uint8Array {
  return blake2b(concat(prefix, payload), { dkLen: 4 });
}
export const filecoinFamily: AddressFamily = {
  key: "filecoin",
  level: "checksum",
  accepts: "f1/f2 (20 bytes), f3 (BLS 48 bytes), f410f (EVM delegated); blake2b-32 checksum; f0 ID and t... rejected",
  validate(address: string): boolean {
    if (typeof address !== "string" || address.length < 10 || address.length > 120 || address[0] !== "f") return false;
    const proto = address[1];
    let prefix: Uint8Array;
    let body: string;
    let plen: number;
    if (proto === "1" || proto === "2" || proto === "3") {
      prefix = Uint8Array.of(Number(proto));
      body = address.slice(2);
      plen = proto === "3" ? 48 : 20;
    } else if (address.startsWith("f410f")) {
      prefix = Uint8Array.of(4, 10);
      body = address.slice(5);
      plen = 20;
    } else return false;
    const words = FIL_B32.toWords(body);
    if (!words) return false;
    const raw = convertBits(words, 5, 8, false);
    if (!raw || raw.length !== plen + 4) return false;
    const bytes = Uint8Array.from(raw);
    return bytesEqual(filChecksum(prefix, bytes.subarray(0, plen)), bytes.subarray(plen), 4);
  },
  generate(random: Random): string {
    const payload = randomNonZero(random, 20);
    const raw = concat(payload, filChecksum(Uint8Array.of(1), payload));
    return `f1${FIL_B32.fromWords(convertBits(raw, 8, 5, true)!)}`;
  },
};

// ---------------------------------------------------------------- Stacks (c32check)
// 'S' + version char + c32(hash160 || sha256d(version || hash160)[0..4]).
// Mainnet versions 22 (P, single-sig) and 20 (M, multi-sig); testnet 26 (T) / 21 (N) rejected.
const C32 = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const C32_RE = /^[0-9A-HJKMNP-TV-Z]+$/;
function c32decode(s: string): Uint8Array | null {
  if (!C32_RE.test(s)) return null;
  let lead = 0;
  while (lead < s.length && s[lead] === "0") lead++;
  let n = 0n;
  for (let i = lead; i < s.length; i++) n = n * 32n + BigInt(C32.indexOf(s[i]));
  const hex = n === 0n ? "" : n.toString(16);
  const bytes = fromHex(hex.length % 2 ? `0${hex}` : hex)!;
  return concat(new Uint8Array(lead), bytes);
}
function c32encode(data: Uint8Array): string {
  let lead = 0;
  while (lead < data.length && data[lead] === 0) lead++;
  let n = 0n;
  for (let i = lead; i < data.length; i++) n = (n << 8n) | BigInt(data[i]);
  let s = "";
  while (n > 0n) {
    s = C32[Number(n & 31n)] + s;
    n >>= 5n;
  }
  return "0".repeat(lead) + s;
}
function stacksEncode(version: number, hash: Uint8Array): string {
  const sum = sha256d(concat(Uint8Array.of(version), hash)).subarray(0, 4);
  return `S${C32[version]}${c32encode(concat(hash, sum))}`;
}
export const stacksFamily: AddressFamily = {
  key: "stacks",
  level: "checksum",
  accepts: "SP... (single-sig) and SM... (multi-sig), c32check; testnet ST/SN rejected",
  validate(address: string): boolean {
    if (typeof address !== "string" || address.length < 28 || address.length > 42 || address[0] !== "S") return false;
    const version = C32.indexOf(address[1]);
    if (version !== 22 && version !== 20) return false;
    const data = c32decode(address.slice(2));
    if (data?.length !== 24) return false;
    // canonical encoding only (re-encode must give the same string)
    return stacksEncode(version, data.subarray(0, 20)) === address;
  },
  generate(random: Random): string {
    return stacksEncode(22, randomNonZero(random, 20));
  },
};

// ---------------------------------------------------------------- Siacoin
// 76 hex = 32-byte unlock hash || blake2b-256(unlock hash)[0..6].
export const siacoinFamily: AddressFamily = {
  key: "siacoin",
  level: "checksum",
  accepts: "76 hex chars (unlock hash + 6-byte blake2b checksum); the void address rejected",
  validate(address: string): boolean {
    if (typeof address !== "string" || address.length !== 76) return false;
    const raw = fromHex(address);
    if (!raw || raw.subarray(0, 32).every((b) => b === 0)) return false; // the void (burn) address
    return bytesEqual(blake2b(raw.subarray(0, 32), { dkLen: 32 }), raw.subarray(32), 6);
  },
  generate(random: Random): string {
    const h = randomNonZero(random, 32);
    return toHex(concat(h, blake2b(h, { dkLen: 32 }).subarray(0, 6)));
  },
};

// ---------------------------------------------------------------- Nervos CKB (RFC 0021)
// Full format: bech32m, 0x00 || code_hash(32) || hash_type(1) || args.
// Deprecated short format (still in use): bech32, 0x01 || code_hash_index || args(20).
export const ckbFamily: AddressFamily = {
  key: "bech32m:ckb",
  level: "checksum",
  accepts: "ckb1... full format (bech32m), deprecated short and full formats (bech32); ckt1 testnet rejected",
  validate(address: string): boolean {
    // bech32/bech32m allow the all-uppercase form (BIP-173); the decoders reject mixed case
    if (typeof address !== "string" || address.slice(0, 4).toLowerCase() !== "ckb1" || address.length > 1000) return false;
    const full = decodeBech(address, "ckb", "bech32m", 1000);
    if (full) {
      return full.length >= 34 && full[0] === 0x00 && [0, 1, 2, 4].includes(full[33]);
    }
    const short = decodeBech(address, "ckb", "bech32", 1000);
    if (short) {
      // Deprecated full formats (0x02 data, 0x04 type): code hash (32 bytes) + args; still decoded by CKB wallets.
      if (short[0] === 0x02 || short[0] === 0x04) return short.length >= 33;
      if (short[0] !== 0x01) return false;
      const idx = short[1];
      if (idx === 0 || idx === 1) return short.length === 22;
      if (idx === 2) return short.length >= 22 && short.length <= 24;
    }
    return false;
  },
  generate(random: Random): string {
    // secp256k1-blake160 lock (sighash-all) code hash, hash_type "type"
    const codeHash = fromHex("9bd7e06f3ecf4be0f2fcd2188b23f1b9fcc88e5d4b65a8637b17723bbda3cce8")!;
    const payload = concat(Uint8Array.of(0x00), codeHash, Uint8Array.of(0x01), randomNonZero(random, 20));
    return bech32m.encode("ckb", bech32m.toWords(payload), 1000);
  },
};

// ---------------------------------------------------------------- Conflux (CIP-37)
// "cfx:" + base32 (custom alphabet) of version byte 0 || 20-byte hex address, 40-bit BCH
// checksum as in CashAddr. Optional ":type.xxx" segment; all upper-case form accepted.
const CFX = makeBase32("abcdefghjkmnprstuvwxyz0123456789");
function cfxPrefixWords(): number[] {
  return [..."cfx"].map((c) => c.charCodeAt(0) & 31).concat(0);
}
export const confluxFamily: AddressFamily = {
  key: "conflux",
  level: "checksum",
  accepts: "cfx:aa... (CIP-37 base32 + 40-bit checksum, user/contract/builtin types); cfxtest: and hex 0x rejected",
  validate(address: string): boolean {
    if (typeof address !== "string" || address.length < 46 || address.length > 70) return false;
    if (address !== address.toLowerCase() && address !== address.toUpperCase()) return false;
    const parts = address.toLowerCase().split(":");
    if (parts[0] !== "cfx") return false;
    let typeTag: string | null = null;
    if (parts.length === 3) {
      if (!parts[1].startsWith("type.")) return false;
      typeTag = parts[1].slice(5);
    } else if (parts.length !== 2) return false;
    const body = parts[parts.length - 1];
    if (body.length !== 42) return false;
    const words = CFX.toWords(body);
    if (!words) return false;
    if (cashPolymod([...cfxPrefixWords(), ...words]) !== 0n) return false;
    const data = convertBits(words.slice(0, -8), 5, 8, false);
    if (data?.length !== 21 || data[0] !== 0) return false;
    const kind = data[1] >> 4;
    const type = kind === 1 ? "user" : kind === 8 ? "contract" : kind === 0 ? "builtin" : null;
    if (!type) return false;
    if (data.slice(1).every((b) => b === 0)) return false;
    return typeTag === null || typeTag === type;
  },
  generate(random: Random): string {
    const addr = randomNonZero(random, 20);
    addr[0] = 0x10 | (addr[0] & 0x0f); // user account
    const words = convertBits(concat(Uint8Array.of(0), addr), 8, 5, true)!;
    const sum = cashChecksumWordsCfx(words);
    return `cfx:${CFX.fromWords([...words, ...sum])}`;
  },
};
function cashChecksumWordsCfx(payload: number[]): number[] {
  const mod = cashPolymod([...cfxPrefixWords(), ...payload, 0, 0, 0, 0, 0, 0, 0, 0]);
  const out: number[] = [];
  for (let i = 0; i < 8; i++) out.push(Number((mod >> BigInt(5 * (7 - i))) & 31n));
  return out;
}

// ---------------------------------------------------------------- Zcash
// Transparent t1/t3 (base58check, 2-byte versions), TEX (ZIP-320, bech32m "tex", 20 bytes),
// Sapling (bech32 "zs", 43 bytes). Testnet tm/t2, textest, ztestsapling rejected.
const zecTransparent = utxoFamily("utxo:zec", UTXO_PARAMS.zec, UTXO_PARAMS.zec.accepts);
export const zcashFamily: AddressFamily = {
  key: "utxo:zec",
  level: "checksum",
  accepts: UTXO_PARAMS.zec.accepts,
  validate(address: string): boolean {
    if (typeof address !== "string") return false;
    // bech32/bech32m allow the all-uppercase form (BIP-173); the decoders reject mixed case
    const lower = address.toLowerCase();
    if (lower.startsWith("tex1")) {
      const b = decodeBech(address, "tex", "bech32m");
      return !!b && b.length === 20;
    }
    if (lower.startsWith("zs1")) {
      const b = decodeBech(address, "zs", "bech32");
      return !!b && b.length === 43;
    }
    return zecTransparent.validate(address);
  },
  generate(random: Random): string {
    return zecTransparent.generate(random);
  },
};
