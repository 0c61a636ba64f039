// Stellar StrKey (SEP-23): RFC 4648 base32, version byte, payload, CRC16-XModem (little-endian).
// Accepted: G... account ids (ed25519 public key) and M... muxed accounts. Secret seeds (S...),
// pre-auth/hash-x signers and contracts are not deposit addresses: rejected.
import { base32nopad } from "@scure/base";
import type { AddressFamily } from "./types";
import { concat, crc16xmodem, type Random, randomNonZero, tryDecode } from "./util";

const VERSION_G = 6 << 3; // 'G'
const VERSION_M = 12 << 3; // 'M'
const B32_RE = /^[A-Z2-7]+$/;

export function decodeStrKey(s: string): { version: number; payload: Uint8Array } | null {
  if (!B32_RE.test(s)) return null;
  if (s.length !== 56 && s.length !== 69) return null;
  // base32nopad requires whole bytes; 69 chars = 43 bytes + 1 padding bit.
  let raw: Uint8Array | null;
  if (s.length === 56) raw = tryDecode(() => base32nopad.decode(s));
  else raw = decodeLoose(s, 43);
  if (!raw) return null;
  const body = raw.subarray(0, raw.length - 2);
  const crc = crc16xmodem(body);
  if ((raw[raw.length - 2] | (raw[raw.length - 1] << 8)) !== crc) return null;
  return { version: body[0], payload: body.subarray(1) };
}

const ALPHA = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
function decodeLoose(s: string, nbytes: number): Uint8Array | null {
  let acc = 0;
  let bits = 0;
  const out = new Uint8Array(nbytes);
  let o = 0;
  for (let i = 0; i < s.length; i++) {
    const v = ALPHA.indexOf(s[i]);
    if (v < 0) return null;
    acc = ((acc << 5) | v) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      if (o >= nbytes) return null;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  if (o !== nbytes || (acc & ((1 << bits) - 1)) !== 0) return null; // non-canonical padding bits
  return out;
}

function encodeStrKey(version: number, payload: Uint8Array): string {
  const body = concat(Uint8Array.of(version), payload);
  const crc = crc16xmodem(body);
  const raw = concat(body, Uint8Array.of(crc & 0xff, crc >> 8));
  let acc = 0;
  let bits = 0;
  let s = "";
  for (let i = 0; i < raw.length; i++) {
    acc = ((acc << 8) | raw[i]) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      s += ALPHA[(acc >> bits) & 31];
    }
  }
  if (bits > 0) s += ALPHA[(acc << (5 - bits)) & 31];
  return s;
}

export const stellarFamily: AddressFamily = {
  key: "stellar",
  level: "checksum",
  accepts: "G... account ids and M... muxed accounts (StrKey CRC16); S.../T.../X.../C... rejected",
  validate(address: string): boolean {
    if (typeof address !== "string") return false;
    const d = decodeStrKey(address);
    if (!d) return false;
    if (d.version === VERSION_G) return address.length === 56 && d.payload.length === 32;
    if (d.version === VERSION_M) return address.length === 69 && d.payload.length === 40;
    return false;
  },
  generate(random: Random): string {
    return encodeStrKey(VERSION_G, randomNonZero(random, 32));
  },
};
