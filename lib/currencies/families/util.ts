// Shared primitives for the address families: audited hashes (@noble/hashes) and codecs
// (@scure/base), plus the few tiny checksums (CRC16/CRC32) that no audited package exports.
import { sha256 } from "@noble/hashes/sha2.js";
import { randomBytes as nobleRandomBytes } from "@noble/hashes/utils.js";
import { base58 } from "@scure/base";

export type Random = (n: number) => Uint8Array;

/** Default randomness: WebCrypto getRandomValues (node:crypto's webcrypto on Node 20). */
export const defaultRandom: Random = (n) => nobleRandomBytes(n);

export function sha256d(data: Uint8Array): Uint8Array {
  return sha256(sha256(data));
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  let len = 0;
  for (const p of parts) len += p.length;
  const out = new Uint8Array(len);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array, len = a.length): boolean {
  if (a.length < len || b.length < len) return false;
  for (let i = 0; i < len; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function startsWith(data: Uint8Array, prefix: readonly number[]): boolean {
  if (data.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (data[i] !== prefix[i]) return false;
  return true;
}

export function isAllZero(data: Uint8Array): boolean {
  for (let i = 0; i < data.length; i++) if (data[i] !== 0) return false;
  return true;
}

/** Random bytes that are not all zero (a zero hash/key is a burn address on most chains). */
export function randomNonZero(random: Random, n: number): Uint8Array {
  for (let i = 0; i < 16; i++) {
    const b = random(n);
    if (b.length !== n) throw new Error(`random(${n}) returned ${b.length} bytes`);
    if (!isAllZero(b)) return b;
  }
  const b = new Uint8Array(n);
  b[n - 1] = 1;
  return b;
}

const HEX = "0123456789abcdef";
export function toHex(data: Uint8Array): string {
  let s = "";
  for (let i = 0; i < data.length; i++) s += HEX[data[i] >> 4] + HEX[data[i] & 15];
  return s;
}

export function fromHex(hex: string): Uint8Array | null {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) return null;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16);
  return out;
}

/** Decode with a throwing codec; null instead of an exception. */
export function tryDecode<T>(fn: () => T): T | null {
  try {
    return fn();
  } catch {
    return null;
  }
}

const B58_RE = /^[1-9A-HJ-NP-Za-km-z]+$/;
export function isBase58(s: string): boolean {
  return B58_RE.test(s);
}

/** Bitcoin-alphabet base58 decode, null on any invalid character. */
export function b58decode(s: string): Uint8Array | null {
  if (!isBase58(s)) return null;
  return tryDecode(() => base58.decode(s));
}

/**
 * Base58Check with a 4-byte checksum computed by `hash` (double SHA-256 by default).
 * Returns the payload without the checksum (version bytes included), or null.
 */
export function b58checkDecode(s: string, hash: (d: Uint8Array) => Uint8Array = sha256d): Uint8Array | null {
  const raw = b58decode(s);
  if (!raw || raw.length < 5) return null;
  const payload = raw.subarray(0, raw.length - 4);
  const sum = hash(payload);
  if (!bytesEqual(sum, raw.subarray(raw.length - 4), 4)) return null;
  return payload;
}

export function b58checkEncode(payload: Uint8Array, hash: (d: Uint8Array) => Uint8Array = sha256d): string {
  return base58.encode(concat(payload, hash(payload).subarray(0, 4)));
}

// CRC-16/XMODEM (poly 0x1021, init 0): Stellar StrKey, TON user-friendly addresses.
const CRC16_TABLE = (() => {
  const t = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i << 8;
    for (let j = 0; j < 8; j++) c = c & 0x8000 ? ((c << 1) ^ 0x1021) & 0xffff : (c << 1) & 0xffff;
    t[i] = c;
  }
  return t;
})();
export function crc16xmodem(data: Uint8Array): number {
  let crc = 0;
  for (let i = 0; i < data.length; i++) crc = ((crc << 8) & 0xffff) ^ CRC16_TABLE[((crc >> 8) ^ data[i]) & 0xff];
  return crc;
}

// CRC-32 (IEEE 802.3, reflected 0xEDB88320): ICP account identifiers, Cardano Byron.
const CRC32_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let j = 0; j < 8; j++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[i] = c >>> 0;
  }
  return t;
})();
export function crc32(data: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < data.length; i++) c = CRC32_TABLE[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Generic 5-bit (base32-style) alphabet helpers for custom alphabets. */
export function makeBase32(alphabet: string) {
  const map = new Int8Array(128).fill(-1);
  for (let i = 0; i < alphabet.length; i++) map[alphabet.charCodeAt(i)] = i;
  return {
    /** chars -> 5-bit values, null on a character outside the alphabet */
    toWords(s: string): number[] | null {
      const out = new Array<number>(s.length);
      for (let i = 0; i < s.length; i++) {
        const c = s.charCodeAt(i);
        const v = c < 128 ? map[c] : -1;
        if (v < 0) return null;
        out[i] = v;
      }
      return out;
    },
    fromWords(words: ArrayLike<number>): string {
      let s = "";
      for (let i = 0; i < words.length; i++) s += alphabet[words[i]];
      return s;
    },
  };
}

/** Regroup bits (like bech32 convertbits). Returns null on non-zero padding when !pad. */
export function convertBits(data: ArrayLike<number>, from: number, to: number, pad: boolean): number[] | null {
  let acc = 0;
  let bits = 0;
  const out: number[] = [];
  const maxv = (1 << to) - 1;
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (v < 0 || v >> from !== 0) return null;
    acc = (acc << from) | v;
    bits += from;
    while (bits >= to) {
      bits -= to;
      out.push((acc >> bits) & maxv);
    }
    acc &= (1 << bits) - 1;
  }
  if (pad) {
    if (bits > 0) out.push((acc << (to - bits)) & maxv);
  } else if (bits >= from || ((acc << (to - bits)) & maxv) !== 0) {
    return null;
  }
  return out;
}
