// Flow account addresses: 8 bytes, codewords of a [64,45,7] linear code (onflow/flow-go
// model/flow/address.go). Mainnet uses the code itself; test networks XOR an invalid codeword
// into every address, so their addresses fail the mainnet parity check. Distance 7 means any
// single wrong hex character (at most 4 flipped bits) is detected.
import type { AddressFamily } from "./types";
import { type Random, toHex } from "./util";

// Columns of the parity-check matrix H (flow-go parityCheckMatrixColumns), bit i of the address
// (least significant first).
const PARITY = [
  0x00001, 0x00002, 0x00004, 0x00008, 0x00010, 0x00020, 0x00040, 0x00080, 0x00100, 0x00200, 0x00400, 0x00800, 0x01000, 0x02000, 0x04000,
  0x08000, 0x10000, 0x20000, 0x40000, 0x7328d, 0x6689a, 0x6112f, 0x6084b, 0x433fd, 0x42aab, 0x41951, 0x233ce, 0x22a81, 0x21948, 0x1ef60,
  0x1deca, 0x1c639, 0x1bdd8, 0x1a535, 0x194ac, 0x18c46, 0x1632b, 0x1529b, 0x14a43, 0x13184, 0x12942, 0x118c1, 0x0f812, 0x0e027, 0x0d00e,
  0x0c83c, 0x0b01d, 0x0a831, 0x0982b, 0x07034, 0x0682a, 0x05819, 0x03807, 0x007d2, 0x00727, 0x0068e, 0x0067c, 0x0059d, 0x004eb, 0x003b4,
  0x0036a, 0x002d9, 0x001c7, 0x0003f,
];
// Rows of the generator matrix G (flow-go generatorMatrixRows).
const GEN = [
  0xe467b9dd11fa00dfn,
  0xf233dcee88fe0aben,
  0xf919ee77447b7497n,
  0xfc8cf73ba23a260dn,
  0xfe467b9dd11ee2a1n,
  0xff233dcee888d807n,
  0xff919ee774476ce6n,
  0x7fc8cf73ba231d10n,
  0x3fe467b9dd11b183n,
  0x1ff233dcee8f96d6n,
  0x8ff919ee774757ban,
  0x47fc8cf73ba2b331n,
  0x23fe467b9dd27f6cn,
  0x11ff233dceee8e82n,
  0x88ff919ee775dd8fn,
  0x447fc8cf73b905e4n,
  0xa23fe467b9de0d83n,
  0xd11ff233dce8d5a7n,
  0xe88ff919ee73c38an,
  0x7447fc8cf73f171fn,
  0xba23fe467b9dcb2bn,
  0xdd11ff233dcb0cb4n,
  0xee88ff919ee26c5dn,
  0x77447fc8cf775dd3n,
  0x3ba23fe467b9b5a1n,
  0x9dd11ff233d9117an,
  0xcee88ff919efa640n,
  0xe77447fc8cf3e297n,
  0x73ba23fe467fabd2n,
  0xb9dd11ff233fb16cn,
  0xdcee88ff919adde7n,
  0xee77447fc8ceb196n,
  0xf73ba23fe4621cd0n,
  0x7b9dd11ff2379ac3n,
  0x3dcee88ff91df46cn,
  0x9ee77447fc88e702n,
  0xcf73ba23fe4131b6n,
  0x67b9dd11ff240f9an,
  0x33dcee88ff90f9e0n,
  0x19ee77447fcff4e3n,
  0x8cf73ba23fe64091n,
  0x467b9dd11ff115c7n,
  0x233dcee88ffdb735n,
  0x919ee77447fe2309n,
  0xc8cf73ba23fdc736n,
];
const RE = /^0x[0-9a-f]{16}$/;

/** Parity syndrome of a 64-bit address given as hex (16 chars); 0 for a mainnet codeword. */
export function flowSyndrome(hex16: string): number {
  let parity = 0;
  // bit i = i-th least significant bit; process the 16 nibbles from the right
  for (let n = 0; n < 16; n++) {
    const v = parseInt(hex16[15 - n], 16);
    for (let b = 0; b < 4; b++) if ((v >> b) & 1) parity ^= PARITY[n * 4 + b];
  }
  return parity;
}

export const flowFamily: AddressFamily = {
  key: "flow",
  level: "checksum",
  accepts: "0x + 16 lower-case hex, a mainnet codeword of Flow's [64,45,7] address code; testnet/emulator addresses rejected",
  validate(address: string): boolean {
    if (typeof address !== "string" || !RE.test(address)) return false;
    const hex = address.slice(2);
    return hex !== "0000000000000000" && flowSyndrome(hex) === 0;
  },
  generate(random: Random): string {
    const b = random(6);
    let index = 0n;
    for (const x of b) index = (index << 8n) | BigInt(x);
    index &= (1n << 45n) - 1n;
    if (index === 0n) index = 1n;
    let word = 0n;
    for (let i = 0; i < 45; i++) if ((index >> BigInt(i)) & 1n) word ^= GEN[i];
    const out = new Uint8Array(8);
    for (let i = 7; i >= 0; i--) {
      out[i] = Number(word & 0xffn);
      word >>= 8n;
    }
    return `0x${toHex(out)}`;
  },
};
