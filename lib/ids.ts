import "server-only";
import crypto from "node:crypto";
import { base58 } from "@scure/base";

/** Unguessable identifiers: 128 random bits, base58 (no look-alike characters). */
export const newId = (bytes = 16): string => base58.encode(crypto.randomBytes(bytes));

/** Order ids are shown to end users and typed into support chats: lower-case hex, 96 bits. */
export const newOrderId = (): string => crypto.randomBytes(12).toString("hex");

/** Deterministic bytes from a seed (sha256 in counter mode): the same seed always gives the same stream. */
export function seededBytes(seed: string): (n: number) => Uint8Array {
  let counter = 0;
  return (n: number) => {
    const out = new Uint8Array(n);
    for (let off = 0; off < n; off += 32) {
      const block = crypto.createHash("sha256").update(`${seed}:${counter++}`).digest();
      out.set(block.subarray(0, Math.min(32, n - off)), off);
    }
    return out;
  };
}
