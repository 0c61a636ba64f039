// Extra-ID (destination tag / memo / comment / transfer id) validators and generators.
// Format keys stored per currency in currencies.json (`extraIdFormat`):
//   uint32        XRP destination tag: 0..4294967295, canonical decimal
//   uint64        Casper transfer id, ICP memo: 0..18446744073709551615, canonical decimal
//   stellar-memo  Stellar MEMO_TEXT (<= 28 bytes UTF-8), MEMO_ID (uint64) or MEMO_HASH (64 hex)
//   text:N        UTF-8 text of 1..N bytes, no control characters, no lone surrogates
//   bnb-memo      BNB Beacon Chain: ^[0-9A-Za-z\-_]{1,120}$
import type { Random } from "./families/util";

export type ExtraIdValidator = (value: string) => boolean;

const UINT_RE = /^(0|[1-9][0-9]*)$/;
const MAX_U32 = 4294967295n;
const MAX_U64 = 18446744073709551615n;
// C0/C1 controls and DEL; lone surrogates
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL_RE = /[\u0000-\u001f\u007f-\u009f]/;
const LONE_SURROGATE_RE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const ENC = new TextEncoder();

export function isUint(value: string, max: bigint): boolean {
  if (typeof value !== "string" || value.length === 0 || value.length > 20 || !UINT_RE.test(value)) return false;
  return BigInt(value) <= max;
}

export function isText(value: string, maxBytes: number): boolean {
  if (typeof value !== "string" || value.length === 0 || value.length > maxBytes) return false;
  if (CONTROL_RE.test(value) || LONE_SURROGATE_RE.test(value)) return false;
  if (value.trim() !== value) return false; // leading/trailing whitespace is almost always a paste error
  return ENC.encode(value).length <= maxBytes;
}

const BNB_MEMO_RE = /^[0-9A-Za-z_-]{1,120}$/;
const HEX64_RE = /^[0-9a-fA-F]{64}$/;

const cache = new Map<string, ExtraIdValidator>();

export function getExtraIdValidator(format: string | null | undefined): ExtraIdValidator | undefined {
  if (!format) return undefined;
  const hit = cache.get(format);
  if (hit) return hit;
  let v: ExtraIdValidator | undefined;
  if (format === "uint32") v = (s) => isUint(s, MAX_U32);
  else if (format === "uint64") v = (s) => isUint(s, MAX_U64);
  else if (format === "stellar-memo") v = (s) => isUint(s, MAX_U64) || HEX64_RE.test(s) || isText(s, 28);
  else if (format === "bnb-memo") v = (s) => typeof s === "string" && BNB_MEMO_RE.test(s);
  else {
    const m = /^text:([1-9][0-9]*)$/.exec(format);
    if (m) {
      const n = Number(m[1]);
      v = (s) => isText(s, n);
    }
  }
  if (v) cache.set(format, v);
  return v;
}

/** A random valid extra ID for deposits (numeric: fits every format, and is what exchanges use). */
export function generateExtraId(format: string, random: Random): string {
  const b = random(4);
  const n = ((b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]) >>> 0;
  // 1..4294967295 as decimal, valid for uint32/uint64/stellar-memo/text:N (N >= 10)/bnb-memo
  const id = String(n === 0 ? 1 : n);
  const v = getExtraIdValidator(format);
  if (!v?.(id)) throw new Error(`cannot generate extra id for format ${format}`);
  return id;
}
