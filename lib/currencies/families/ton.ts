// TON user-friendly addresses (ton-core Address.parseFriendly): 36 bytes = tag (0x11
// bounceable / 0x51 non-bounceable; +0x80 = testnet-only, rejected), workchain (0 or -1),
// 32-byte account hash, CRC16-XModem big-endian; 48 chars base64 or base64url.
// Raw "0:<hex>" has no checksum and is not accepted.
import { base64, base64url } from "@scure/base";
import type { AddressFamily } from "./types";
import { concat, crc16xmodem, type Random, randomNonZero, tryDecode } from "./util";

const RE = /^[A-Za-z0-9+/_-]{48}$/;

function decode64(s: string): Uint8Array | null {
  if (!RE.test(s)) return null;
  const urlsafe = /[-_]/.test(s);
  const std = /[+/]/.test(s);
  if (urlsafe && std) return null;
  const b = tryDecode(() => (urlsafe ? base64url : base64).decode(s));
  return b && b.length === 36 ? b : null;
}

export const tonFamily: AddressFamily = {
  key: "ton",
  level: "checksum",
  accepts: "user-friendly EQ.../UQ... (base64/base64url, CRC16), workchain 0 or -1; testnet flag and raw form rejected",
  validate(address: string): boolean {
    if (typeof address !== "string") return false;
    const raw = decode64(address);
    if (!raw) return false;
    if (raw[0] !== 0x11 && raw[0] !== 0x51) return false;
    if (raw[1] !== 0x00 && raw[1] !== 0xff) return false;
    const crc = crc16xmodem(raw.subarray(0, 34));
    return raw[34] === crc >> 8 && raw[35] === (crc & 0xff);
  },
  generate(random: Random): string {
    const tag = random(1)[0] & 1 ? 0x11 : 0x51;
    const body = concat(Uint8Array.of(tag, 0x00), randomNonZero(random, 32));
    const crc = crc16xmodem(body);
    return base64url.encode(concat(body, Uint8Array.of(crc >> 8, crc & 0xff)));
  },
};
