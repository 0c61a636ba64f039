// Plain bech32/bech32m account addresses (Cosmos SDK chains, MultiversX, Zilliqa, Harmony,
// Oasis, Chia, BNB Beacon Chain): fixed HRP + checksum + exact payload length.
import { bech32, bech32m } from "@scure/base";
import type { AddressFamily } from "./types";
import { type Random, randomNonZero, tryDecode } from "./util";

export function decodeBech(address: string, hrp: string, variant: "bech32" | "bech32m", limit = 90): Uint8Array | null {
  if (typeof address !== "string" || address.length > limit) return null;
  const codec = variant === "bech32" ? bech32 : bech32m;
  const dec = tryDecode(() => codec.decode(address as `${string}1${string}`, limit));
  if (!dec || dec.prefix !== hrp) return null;
  return tryDecode(() => codec.fromWords(dec.words));
}

export function bechFamily(
  key: string,
  hrp: string,
  lengths: number[],
  accepts: string,
  variant: "bech32" | "bech32m" = "bech32",
  check?: (bytes: Uint8Array) => boolean,
): AddressFamily {
  const codec = variant === "bech32" ? bech32 : bech32m;
  return {
    key,
    level: "checksum",
    accepts,
    validate(address: string): boolean {
      const bytes = decodeBech(address, hrp, variant);
      if (!bytes || !lengths.includes(bytes.length)) return false;
      return check ? check(bytes) : true;
    },
    generate(random: Random): string {
      const bytes = randomNonZero(random, lengths[0]);
      if (check && !check(bytes)) bytes[0] = 0; // e.g. Oasis version byte
      return codec.encode(hrp, codec.toWords(bytes));
    },
  };
}
