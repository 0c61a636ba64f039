// Cardano (CIP-19): Shelley bech32 "addr" (mainnet, network id 1) for base (57 bytes),
// pointer and enterprise (29 bytes) payment addresses; Byron base58 CBOR addresses
// ([tag 24 bytes, crc32]) without a network-magic attribute (mainnet). addr_test, stake
// addresses and testnet Byron addresses are rejected.
import { bech32 } from "@scure/base";
import type { AddressFamily } from "./types";
import { b58decode, crc32, type Random, randomNonZero, tryDecode } from "./util";

// bech32 (BIP-173) allows the all-uppercase form; the decoder rejects mixed case.
const isShelleyShaped = (address: string) => address.slice(0, 5).toLowerCase() === "addr1";

function shelley(address: string): boolean {
  if (address.length > 200 || !isShelleyShaped(address)) return false;
  const dec = tryDecode(() => bech32.decode(address as `${string}1${string}`, 200));
  if (dec?.prefix !== "addr") return false;
  const bytes = tryDecode(() => bech32.fromWords(dec.words));
  if (!bytes || bytes.length < 29) return false;
  const type = bytes[0] >> 4;
  const net = bytes[0] & 0x0f;
  if (net !== 1) return false;
  if (type <= 3) return bytes.length === 57; // base: payment + stake credentials
  if (type === 4 || type === 5) return bytes.length >= 29 + 3 && bytes.length <= 29 + 30; // pointer
  if (type === 6 || type === 7) return bytes.length === 29; // enterprise
  return false; // 8 = Byron (never bech32), 14/15 = stake/reward addresses
}

// --- minimal CBOR reader, enough for the Byron address envelope ---
class Cbor {
  pos = 0;
  constructor(public b: Uint8Array) {}
  head(): { major: number; val: number } | null {
    if (this.pos >= this.b.length) return null;
    const ib = this.b[this.pos++];
    const major = ib >> 5;
    const info = ib & 31;
    let val: number;
    if (info < 24) val = info;
    else if (info === 24) val = this.u(1);
    else if (info === 25) val = this.u(2);
    else if (info === 26) val = this.u(4);
    else return null; // 64-bit lengths / indefinite forms are not used in addresses
    if (val < 0) return null;
    return { major, val };
  }
  u(n: number): number {
    if (this.pos + n > this.b.length) return -1;
    let v = 0;
    for (let i = 0; i < n; i++) v = v * 256 + this.b[this.pos++];
    return v;
  }
  bytes(len: number): Uint8Array | null {
    if (this.pos + len > this.b.length) return null;
    const out = this.b.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }
  /** skip one complete item */
  skip(depth = 0): boolean {
    if (depth > 8) return false;
    const h = this.head();
    if (!h) return false;
    switch (h.major) {
      case 0:
      case 1:
      case 7:
        return true;
      case 2:
      case 3:
        return this.bytes(h.val) !== null;
      case 4:
        for (let i = 0; i < h.val; i++) if (!this.skip(depth + 1)) return false;
        return true;
      case 5:
        for (let i = 0; i < h.val * 2; i++) if (!this.skip(depth + 1)) return false;
        return true;
      case 6:
        return this.skip(depth + 1);
    }
    return false;
  }
}

function byron(address: string): boolean {
  if (address.length < 50 || address.length > 130) return false;
  const raw = b58decode(address);
  if (!raw) return false;
  const r = new Cbor(raw);
  const arr = r.head();
  if (arr?.major !== 4 || arr.val !== 2) return false;
  const tag = r.head();
  if (tag?.major !== 6 || tag.val !== 24) return false;
  const bs = r.head();
  if (bs?.major !== 2) return false;
  const inner = r.bytes(bs.val);
  if (!inner) return false;
  const crc = r.head();
  if (crc?.major !== 0 || r.pos !== raw.length) return false;
  if (crc32(inner) !== crc.val) return false;
  // inner: [ root(28 bytes), attributes map, type ]
  const ir = new Cbor(inner);
  const ia = ir.head();
  if (ia?.major !== 4 || ia.val !== 3) return false;
  const root = ir.head();
  if (root?.major !== 2 || root.val !== 28 || !ir.bytes(28)) return false;
  const attrs = ir.head();
  if (attrs?.major !== 5) return false;
  for (let i = 0; i < attrs.val; i++) {
    const k = ir.head();
    if (k?.major !== 0) return false;
    if (k.val === 2) return false; // protocol magic attribute => a testnet address
    if (!ir.skip()) return false;
  }
  const type = ir.head();
  if (type?.major !== 0 || (type.val !== 0 && type.val !== 2)) return false;
  return ir.pos === inner.length;
}

export const cardanoFamily: AddressFamily = {
  key: "cardano",
  level: "checksum",
  accepts:
    "Shelley addr1... (bech32, base/pointer/enterprise, network 1) and Byron Ae2.../DdzFF... (CRC32); addr_test/stake/testnet Byron rejected",
  validate(address: string): boolean {
    if (typeof address !== "string") return false;
    return isShelleyShaped(address) ? shelley(address) : byron(address);
  },
  generate(random: Random): string {
    const bytes = new Uint8Array(57);
    bytes[0] = 0x01; // base address, key/key, mainnet
    bytes.set(randomNonZero(random, 56), 1);
    return bech32.encode("addr", bech32.toWords(bytes), 200);
  },
};

// exported for tests that build Byron envelopes
