// Ardor (and NXT) account ids in Reed-Solomon form: ARDOR-XXXX-XXXX-XXXX-XXXXX. 17 base-32
// symbols = 13 data symbols (the 64-bit account number) + 4 Reed-Solomon parity symbols over
// GF(32), placed by a fixed permutation (NRS ReedSolomon.java). Any single wrong character is
// detected (the code corrects up to 2 errors).
import type { AddressFamily } from "./types";
import type { Random } from "./util";

const ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ";
const GEXP = [1, 2, 4, 8, 16, 5, 10, 20, 13, 26, 17, 7, 14, 28, 29, 31, 27, 19, 3, 6, 12, 24, 21, 15, 30, 25, 23, 11, 22, 9, 18, 1];
const GLOG = [0, 0, 1, 18, 2, 5, 19, 11, 3, 29, 6, 27, 20, 8, 12, 23, 4, 10, 30, 17, 7, 22, 28, 26, 21, 25, 9, 16, 13, 14, 24, 15];
const CODEWORD_MAP = [3, 2, 1, 0, 7, 6, 5, 4, 13, 14, 15, 16, 12, 8, 9, 10, 11];
const DATA_LEN = 13;
const RE = /^ARDOR-[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{5}$/;

function gmult(a: number, b: number): number {
  if (a === 0 || b === 0) return 0;
  return GEXP[(GLOG[a] + GLOG[b]) % 31];
}

function isCodewordValid(codeword: number[]): boolean {
  let sum = 0;
  for (let i = 1; i < 5; i++) {
    let t = 0;
    for (let j = 0; j < 31; j++) {
      if (j > 12 && j < 27) continue;
      const pos = j > 26 ? j - 14 : j;
      t ^= gmult(codeword[pos], GEXP[(i * j) % 31]);
    }
    sum |= t;
  }
  return sum === 0;
}

/** The 13 data symbols (little-endian base 32) of the account number, parity appended. */
export function rsEncode(account: bigint): string {
  const codeword = new Array<number>(17).fill(0);
  let n = account;
  for (let i = 0; i < DATA_LEN; i++) {
    codeword[i] = Number(n & 31n);
    n >>= 5n;
  }
  const p = [0, 0, 0, 0];
  for (let i = DATA_LEN - 1; i >= 0; i--) {
    const fb = codeword[i] ^ p[3];
    p[3] = p[2] ^ gmult(30, fb);
    p[2] = p[1] ^ gmult(6, fb);
    p[1] = p[0] ^ gmult(9, fb);
    p[0] = gmult(17, fb);
  }
  codeword.splice(DATA_LEN, 4, ...p);
  let out = "";
  for (let i = 0; i < 17; i++) {
    out += ALPHABET[codeword[CODEWORD_MAP[i]]];
    if ((i & 3) === 3 && i < 13) out += "-";
  }
  return out;
}

/** Account number of a Reed-Solomon id (without the "ARDOR-" prefix), or null. */
export function rsDecode(rs: string): bigint | null {
  const codeword = new Array<number>(17).fill(0);
  let len = 0;
  for (const c of rs) {
    if (c === "-") continue;
    const pos = ALPHABET.indexOf(c);
    if (pos < 0 || len > 16) return null;
    codeword[CODEWORD_MAP[len]] = pos;
    len++;
  }
  if (len !== 17 || !isCodewordValid(codeword)) return null;
  let n = 0n;
  for (let i = DATA_LEN - 1; i >= 0; i--) n = (n << 5n) | BigInt(codeword[i]);
  return n < 1n << 64n ? n : null;
}

export const ardorFamily: AddressFamily = {
  key: "ardor",
  level: "checksum",
  accepts: "ARDOR-XXXX-XXXX-XXXX-XXXXX (Reed-Solomon over GF(32), 64-bit account number)",
  validate(address: string): boolean {
    if (typeof address !== "string" || !RE.test(address)) return false;
    const n = rsDecode(address.slice(6));
    return n !== null && rsEncode(n) === address.slice(6);
  },
  generate(random: Random): string {
    const b = random(8);
    let n = 0n;
    for (const x of b) n = (n << 8n) | BigInt(x);
    if (n === 0n) n = 1n;
    return `ARDOR-${rsEncode(n)}`;
  },
};
