// EVM accounts: 0x + 40 hex. EIP-55 mixed-case checksum (keccak-256 of the lower-case hex)
// is verified whenever the input is mixed case; all-lower/all-upper has no checksum.
import { keccak_256 } from "@noble/hashes/sha3.js";
import type { AddressFamily } from "./types";
import { type Random, randomNonZero, toHex } from "./util";

const HEX40 = /^[0-9a-fA-F]{40}$/;
const ENC = new TextEncoder();

export function eip55(hex40lower: string): string {
  const hash = keccak_256(ENC.encode(hex40lower));
  let out = "";
  for (let i = 0; i < 40; i++) {
    const c = hex40lower[i];
    const nibble = (hash[i >> 1] >> (i % 2 === 0 ? 4 : 0)) & 15;
    out += nibble >= 8 ? c.toUpperCase() : c;
  }
  return out;
}

export function validateEvmHex(hex: string): boolean {
  if (!HEX40.test(hex)) return false;
  const lower = hex.toLowerCase();
  if (lower === "0000000000000000000000000000000000000000") return false; // burn address
  if (hex === lower || hex === hex.toUpperCase()) return true;
  return eip55(lower) === hex;
}

export const evmFamily: AddressFamily = {
  key: "evm",
  level: "checksum-if-mixed-case",
  accepts: "0x + 40 hex; EIP-55 checksum enforced when mixed case; zero address rejected",
  validate(address: string): boolean {
    if (typeof address !== "string" || address.length !== 42 || !address.startsWith("0x")) return false;
    return validateEvmHex(address.slice(2));
  },
  generate(random: Random): string {
    return `0x${eip55(toHex(randomNonZero(random, 20)))}`;
  },
};

export const xdcFamily: AddressFamily = {
  key: "evm:xdc",
  level: "checksum-if-mixed-case",
  accepts: "xdc + 40 hex (XDC native form) or 0x + 40 hex; EIP-55 enforced when mixed case",
  validate(address: string): boolean {
    if (typeof address !== "string" || (address.length !== 43 && address.length !== 42)) return false;
    if (address.length === 43 && address.startsWith("xdc")) return validateEvmHex(address.slice(3));
    if (address.length === 42 && address.startsWith("0x")) return validateEvmHex(address.slice(2));
    return false;
  },
  generate(random: Random): string {
    return `xdc${eip55(toHex(randomNonZero(random, 20)))}`;
  },
};
