// Issue 14: the six places where the registry disagreed with the chains' reference libraries,
// and the Starknet paste of an Ethereum address. Every vector names where it comes from; the
// invalid ones are derived from a named valid vector by one stated change.
import { Field, FpIsSquare } from "@noble/curves/abstract/modular.js";
import { ed25519 } from "@noble/curves/ed25519.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { blake2b } from "@noble/hashes/blake2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { base58, base58xmr } from "@scure/base";
import { describe, expect, it } from "vitest";
import { b58checkDecode, b58decode } from "../../lib/currencies/families/util";
import { addressRejectionReason, generateAddress, getCurrency, validateAddress } from "../../lib/currencies/index";

const c = (t: string) => getCurrency(t)!;

// BIP-173 (bitcoin/bips bip-0173.mediawiki, "Uppercase/lowercase"): decoders must accept the
// all-uppercase form (used in QR codes) and must reject mixed case. ZIP-320 (TEX) and CIP-19
// (Cardano) use that same bech32/bech32m encoding.
describe("bech32 case rules (Zcash TEX/Sapling, Cardano Shelley)", () => {
  const zec = [
    "tex1s2rt77ggv6q989lr49rkgzmh5slsksa9khdgte", // zcash/zips zip-0320.rst (reference implementation)
    "zs1z7rejlpsa98s2rrrfkwmaxu53e4ue0ulcrw0h4x5g8jl04tak0d3mm47vdtahatqrlkngh9slya", // zcash/zcash rpc_wallet_tests.cpp
  ];
  const ada = [
    "addr1qx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzer3n0d3vllmyqwsx5wktcd8cc3sq835lu7drv2xwl2wywfgse35a3x", // CIP-19 type-00
    "addr1vx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzers66hrl8", // CIP-19 type-06
  ];

  it("Zcash accepts the all-uppercase TEX and Sapling forms and rejects mixed case", () => {
    for (const a of zec) {
      expect(validateAddress(c("zec"), a), a).toBe(true);
      expect(validateAddress(c("zec"), a.toUpperCase()), a.toUpperCase()).toBe(true);
      const mixed = a.slice(0, 6).toUpperCase() + a.slice(6);
      expect(validateAddress(c("zec"), mixed), mixed).toBe(false);
    }
  });

  it("Cardano accepts the all-uppercase Shelley form and rejects mixed case", () => {
    for (const a of ada) {
      expect(validateAddress(c("ada"), a.toUpperCase()), a.toUpperCase()).toBe(true);
      const mixed = `ADDR1${a.slice(5)}`;
      expect(validateAddress(c("ada"), mixed), mixed).toBe(false);
    }
    // still no testnet or stake address in upper case
    expect(
      validateAddress(c("ada"), "addr_test1vz2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzerspjrlsz".toUpperCase()), // CIP-19 testnet type-06
    ).toBe(false);
    expect(validateAddress(c("ada"), "stake1uyehkck0lajq8gr28t9uxnuvgcqrc6070x3k9r8048z8y5gh6ffgw".toUpperCase())).toBe(false);
  });
});

describe("Monero: both public keys must be points of ed25519 (what wallets check before paying)", () => {
  // monero-project/monero tests/crypto/tests.txt @d28b13c8: "check_key <key> <expected>" lines,
  // the test data of crypto::check_key (ge_frombytes_vartime). Our check must agree on each.
  const CHECK_KEY: Array<[string, boolean]> = [
    ["c2cb3cf3840aa9893e00ec77093d3d44dba7da840b51c48462072d58d8efd183", false],
    ["bd85a61bae0c101d826cbed54b1290f941d26e70607a07fc6f0ad611eb8f70a6", true],
    ["328f81cad4eba24ab2bad7c0e56b1e2e7346e625bcb06ae649aef3ffa0b8bef3", false],
    ["6016a5463b9e5a58c3410d3f892b76278883473c3f0b69459172d3de49e85abe", true],
    ["4c71282b2add07cdc6898a2622553f1ca4eb851e5cb121181628be5f3814c5b1", false],
    ["69393c25c3b50e177f81f20f852dd604e768eb30052e23108b3cfa1a73f2736e", true],
    ["3d5a89b676cb84c2be3428d20a660dc6a37cae13912e127888a5132e8bac2163", true],
    ["78cd665deb28cebc6208f307734c56fccdf5fa7e2933fadfcdd2b6246e9ae95c", false],
    ["e03b2414e260580f86ee294cd4c636a5b153e617f704e81dad248fbf715b2ee4", true],
    ["28c3503ce82d7cdc8e0d96c4553bcf0352bbcfc73925495dbe541e7e1df105fc", false],
    ["06855c3c3e0d03fec354059bda319b39916bdc10b6581e3f41b335ee7b014fd5", false],
    ["556381485df0d7d5a268ab5ecfb2984b060acc63471183fcf538bf273b0c0cb5", true],
    // RFC 8032 5.1.3: y >= p (here y = p = 2^255 - 19) is not a canonical encoding; Monero's
    // ge_frombytes_vartime rejects it too.
    ["edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", false],
  ];

  // 42ey1afD... (monero-project/monero tests/functional_tests/address_book.py) with its spend key
  // replaced by `key` and the keccak-256 checksum recomputed.
  const withSpendKey = (key: string) => {
    const raw = base58xmr.decode("42ey1afDFnn4886T7196doS9GPMzexD9gXpsZJDwVjeRVdFCSoHnv7KPbBeGpzJBzHRCAs9UxqeoyFQMYbqSWYTfJJQAWDm");
    const body = Uint8Array.from(raw.subarray(0, 65));
    body.set(Buffer.from(key, "hex"), 1);
    return base58xmr.encode(Uint8Array.from([...body, ...keccak_256(body).subarray(0, 4)]));
  };

  it("an address is accepted exactly when Monero's own check_key test data says its key is valid", () => {
    for (const [hex, expected] of CHECK_KEY) expect(validateAddress(c("xmr"), withSpendKey(hex)), hex).toBe(expected);
  });

  // Derived from the monero-project/monero tests/functional_tests/address_book.py addresses by
  // replacing one key with a check_key-false key above and recomputing the keccak checksum.
  const BAD_KEY = [
    // 42ey1afD... (standard) with spend key c2cb3cf3...
    "491FgMvnjAYPxRSAEGieNGCX1XmVf3JmyP9HFW94FeXrNwCHtWY4bQdPbBeGpzJBzHRCAs9UxqeoyFQMYbqSWYTfJKbWTTu",
    // 888tNkZr... (subaddress) with view key 328f81ca...
    "888tNkZrPN6JsEgekjMnABU4TBzc2Dt29EPAvkRxbANsAjb9J9eGX3FDVfcc78DkWq8mdKCx1Kd7FfX5fQFENsEmUX1k6wg",
    // 87KfgTZ8... (subaddress) with view key 4c71282b...
    "87KfgTZ8ER5D3Frefqnrqif11TjVsTPaTcp37kqqKMrdDRnnu7YJHz6bRHGVGfC6og5ntKUhXD4vt52frCHtGoLxM4Wtr6p",
  ];

  it("rejects checksum-valid addresses whose spend or view key is not a point", () => {
    for (const a of BAD_KEY) expect(validateAddress(c("xmr"), a), a).toBe(false);
  });

  it("still accepts the real addresses those were derived from", () => {
    for (const a of [
      "42ey1afDFnn4886T7196doS9GPMzexD9gXpsZJDwVjeRVdFCSoHnv7KPbBeGpzJBzHRCAs9UxqeoyFQMYbqSWYTfJJQAWDm",
      "888tNkZrPN6JsEgekjMnABU4TBzc2Dt29EPAvkRxbANsAnjyPbb3iQ1YBRk1UXcdRsiKc9dhwMVgN5S9cQUiyoogDavup3H",
      "87KfgTZ8ER5D3Frefqnrqif11TjVsTPaTcp37kqqKMrdDRUhpJRczeR7KiBmSHF32UJLP3HHhKUDmEQyJrv2mV8yFDCq8eB",
    ])
      expect(validateAddress(c("xmr"), a), a).toBe(true);
  });

  it("every generated deposit address has two valid keys in the prime-order subgroup (200 draws)", () => {
    const bad: string[] = [];
    for (let i = 0; i < 200; i++) {
      const { address } = generateAddress(c("xmr"));
      const raw = base58xmr.decode(address);
      for (const key of [raw.subarray(1, 33), raw.subarray(33, 65)]) {
        try {
          const p = ed25519.Point.fromBytes(key, false);
          // a key a real wallet derives is k*G: no small-order component
          if (!p.isTorsionFree()) bad.push(`${address} (small-order component)`);
        } catch {
          bad.push(address);
        }
      }
    }
    expect(bad).toEqual([]);
  });
});

describe("Mina: the B62 key's x must be on the Pallas curve y^2 = x^3 + 5", () => {
  // Valid keys: o1-labs/o1js src/mina-signer/src/test-vectors/legacySignatures.ts.
  const VALID = [
    "B62qiy32p8kAKnny8ZFwoMhYpBppM1DWVCqAPBYNcXnsAHhnfAAuXgg",
    "B62qrcFstkpqXww1EkSGrqMCwCNho86kuqBd4FrAAUsPxNKdiPzAUsy",
    "B62qkfHpLpELqpMK6ZvUTJ5wRqKDRF3UHyJ4Kv3FU79Sgs4qpBnx5RR",
  ];
  const OFF_CURVE = [
    // B62qrcFs... with x + 1 (x^3 + 5 is not a square there), checksum recomputed
    "B62qreCd4zGsPNcENa1ymQyCtWyUiEiUZY2VqtvGQdZHx2L2Cy2iVWf",
    // checksum-valid, formerly listed here as a "recalled" vector; mina-signer 4.0.0
    // (publicKeyToRaw) says "PublicKey: not a valid group element"
    "B62qrPN5Y5yq8kGE3FbVKbGTdTAJNdtNtB5sNVpxyRwWGcDEhpMzc8g",
  ];

  it("accepts real keys and rejects checksum-valid keys whose x is off the curve", () => {
    for (const a of VALID) expect(validateAddress(c("mina"), a), a).toBe(true);
    for (const a of OFF_CURVE) expect(validateAddress(c("mina"), a), a).toBe(false);
  });

  it("every generated deposit address is a point of Pallas (200 draws)", () => {
    // Pallas base field (zcash/pasta; o1js curve-bigint.ts): x is valid when x < p and x^3 + 5 is a square
    const Fp = Field(0x40000000000000000000000000000000224698fc094cf91b992d30ed00000001n);
    const bad: string[] = [];
    for (let i = 0; i < 200; i++) {
      const { address } = generateAddress(c("mina"));
      const payload = b58checkDecode(address)!; // cb 01 01 | x (32 bytes, little-endian) | isOdd
      const x = BigInt(`0x${Buffer.from(payload.subarray(3, 35)).reverse().toString("hex")}`);
      if (x >= Fp.ORDER || !FpIsSquare(Fp, Fp.add(Fp.pow(x, 3n), 5n))) bad.push(address);
    }
    expect(bad).toEqual([]);
  });
});

describe("Ergo: a P2PK key must be a point of secp256k1 (found by the differential test against ergo-lib)", () => {
  // sigma-rust ergotree-ir/src/chain/address.rs: P2PK content = a compressed group element.
  // 9fRAWhdx... (mainnet P2PK from that file) with its key's x replaced by 5...5, which is not the x
  // of a curve point (ergo-lib: "Scorex parsing error"), checksum recomputed.
  const withKey = (key: Uint8Array) => {
    const body = Uint8Array.from([0x01, ...key]);
    return base58.encode(Uint8Array.from([...body, ...blake2b(body, { dkLen: 32 }).subarray(0, 4)]));
  };

  it("rejects a checksum-valid P2PK address whose key is off the curve, accepts the real one", () => {
    const real = b58decode("9fRAWhdxEsTcdb8PhGNrZfwqa65zfkuYHAMmkQLcic1gdLSV5vA")!.subarray(1, 34);
    expect(validateAddress(c("erg"), withKey(real))).toBe(true);
    expect(validateAddress(c("erg"), withKey(Uint8Array.from([0x02, ...new Uint8Array(32).fill(5)])))).toBe(false);
  });

  it("every generated deposit address carries a curve point (200 draws)", () => {
    const bad: string[] = [];
    for (let i = 0; i < 200; i++) {
      const { address } = generateAddress(c("erg"));
      const key = b58decode(address)!.subarray(1, 34);
      try {
        secp256k1.Point.fromBytes(key);
      } catch {
        bad.push(address);
      }
    }
    expect(bad).toEqual([]);
  });
});

describe("Starknet: an Ethereum address is refused with a message that says so", () => {
  // EIP-55 examples (ethereum/EIPs EIPS/eip-55.md) and an Ethereum address as a user pastes it.
  const EVM = [
    "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
    "0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359",
    "0xD1220A0CF47C7B9BE7A2E6BA89F429762E7B9ADB",
  ];

  it("rejects 0x + 40 hex (and any value below 2^160) for STRK and USDC on Starknet", () => {
    for (const t of ["strk", "usdcstrk"]) {
      for (const a of EVM) {
        expect(validateAddress(c(t), a), `${t} ${a}`).toBe(false);
        expect(addressRejectionReason(c(t), a), `${t} ${a}`).toMatch(/Ethereum/);
      }
      // the same value zero-padded to 64 hex digits is still an Ethereum address
      const padded = `0x${"0".repeat(24)}${EVM[0].slice(2)}`;
      expect(validateAddress(c(t), padded)).toBe(false);
      expect(addressRejectionReason(c(t), padded)).toMatch(/Ethereum/);
    }
  });

  it("keeps accepting real Starknet addresses (starknet.js test data), with no message", () => {
    for (const a of [
      "0x049d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7",
      "0x7ee790591d9fa3efc87067d95a643f8455e0b8190eb8cb7bfd39e4fb7571fdf",
    ]) {
      expect(validateAddress(c("strk"), a), a).toBe(true);
      expect(addressRejectionReason(c("strk"), a)).toBeNull();
    }
  });

  it("gives no Ethereum message for addresses that are simply wrong", () => {
    expect(addressRejectionReason(c("strk"), "0xzz")).toBeNull();
    expect(addressRejectionReason(c("eth"), "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed")).toBeNull();
  });
});
