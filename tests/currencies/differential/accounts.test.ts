// Differential tests, account-style chains: EVM (viem), XRP, Stellar, Substrate, TON, Algorand,
// Tezos, Nano, Stacks, Starknet, Solana, NEO, Waves, Conflux, Filecoin, NEM, CKB and the bech32
// account chains (the `bech32` package, independent of the @scure/base codec the registry uses).
import { createRequire } from "node:module";
import { wallet as neoWallet } from "@cityofzion/neon-core";
import { predefined } from "@ckb-lumos/config-manager";
import { encodeToAddress, parseAddress } from "@ckb-lumos/helpers";
import cfx from "@conflux-dev/conflux-address-js";
import * as fil from "@glif/filecoin-address";
import { checkAddress, encodeAddress } from "@polkadot/util-crypto";
import { getAddressDecoder, isAddress as isSolanaAddress } from "@solana/addresses";
import { StrKey } from "@stellar/stellar-base";
import { b58Encode, PrefixV2, ValidationResult, validateAddress as validateTezos } from "@taquito/utils";
import { Address as TonAddress } from "@ton/core";
import algosdk from "algosdk";
import { bech32, bech32m } from "bech32";
import * as c32 from "c32check";
import * as nano from "nanocurrency";
import * as ripple from "ripple-address-codec";
import { validateAndParseAddress } from "starknet";
import { PublicKey } from "symbol-sdk";
import { NemFacade } from "symbol-sdk/nem";
import { getAddress, isAddress as isEvmAddress } from "viem";
import { describe } from "vitest";
import type { Random } from "../../../lib/currencies/families/util";
import { type Reference, runDifferential } from "./harness";

// @waves/ts-lib-crypto's ES module build imports names node-forge does not export under Node;
// its CommonJS build works.
const waves = createRequire(import.meta.url)("@waves/ts-lib-crypto") as {
  verifyAddress(address: string, opts: { chainId: string }): boolean;
  address(seed: { publicKey: Uint8Array }, chainId: string): string;
};

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const pick = <T>(random: Random, xs: readonly T[]) => xs[random(1)[0] % xs.length];
const noThrow = (f: () => unknown) => {
  try {
    return f() !== false;
  } catch {
    return false;
  }
};

const evm: Reference = {
  family: "evm",
  check: "isAddress(strict)",
  accepts: (a) => isEvmAddress(a, { strict: true }),
  make: (random) => {
    const a = getAddress(`0x${hex(random(20))}`);
    return random(1)[0] & 1 ? a : a.toLowerCase();
  },
  stricter: (a) => (/^0x0{40}$/i.test(a) ? "the zero address is a burn address" : null),
};

// XDC writes the same EIP-55 checksum after an xdc prefix (XinFinOrg/XDPoSChain common/types_test.go).
const xdc: Reference = {
  family: "evm:xdc",
  check: "isAddress(strict) after xdc -> 0x",
  accepts: (a) => isEvmAddress(a.startsWith("xdc") ? `0x${a.slice(3)}` : a, { strict: true }),
  make: (random) => `xdc${getAddress(`0x${hex(random(20))}`).slice(2)}`,
  stricter: (a) => (/^(0x|xdc)0{40}$/i.test(a) ? "the zero address is a burn address" : null),
};

const xrp: Reference = {
  family: "xrp",
  check: "isValidClassicAddress / isValidXAddress (mainnet)",
  accepts: (a) => ripple.isValidClassicAddress(a) || (ripple.isValidXAddress(a) && !ripple.xAddressToClassicAddress(a).test),
  make: (random) => {
    const classic = ripple.encodeAccountID(random(20));
    const r = random(5);
    if (r[0] % 3 === 0) return classic;
    return ripple.classicAddressToXAddress(classic, r[0] % 3 === 1 ? false : Buffer.from(r.subarray(1)).readUInt32BE(), false);
  },
  stricter: (a) => (noThrow(() => ripple.decodeAccountID(a).every((b) => b === 0)) ? "the all-zero account (ACCOUNT_ZERO)" : null),
};

const stellar: Reference = {
  family: "stellar",
  check: "StrKey.isValidEd25519PublicKey / isValidMed25519PublicKey",
  accepts: (a) => StrKey.isValidEd25519PublicKey(a) || StrKey.isValidMed25519PublicKey(a),
  make: (random) =>
    random(1)[0] & 1 ? StrKey.encodeEd25519PublicKey(Buffer.from(random(32))) : StrKey.encodeMed25519PublicKey(Buffer.from(random(40))),
};

const ss58 = (family: string, prefix: number): Reference => ({
  family,
  check: `checkAddress(address, ${prefix})`,
  accepts: (a) => checkAddress(a, prefix)[0],
  make: (random) => encodeAddress(random(32), prefix),
});

const ton: Reference = {
  family: "ton",
  check: "Address.isFriendly / parseFriendly (not test-only)",
  accepts: (a) => noThrow(() => TonAddress.isFriendly(a) && !TonAddress.parseFriendly(a).isTestOnly),
  make: (random) => {
    const [wc, url, bounce] = random(3);
    return new TonAddress(wc & 1 ? 0 : -1, Buffer.from(random(32))).toString({
      urlSafe: !!(url & 1),
      bounceable: !!(bounce & 1),
      testOnly: false,
    });
  },
  stricter: (a) => {
    const wc = noThrow(() => TonAddress.parseFriendly(a)) ? TonAddress.parseFriendly(a).address.workChain : 0;
    return wc !== 0 && wc !== -1 ? `workchain ${wc} (only basechain 0 and masterchain -1 exist)` : null;
  },
};

const algorand: Reference = {
  family: "algorand",
  check: "isValidAddress",
  accepts: (a) => algosdk.isValidAddress(a),
  make: (random) => algosdk.encodeAddress(random(32)),
  // algosdk ignores the two unused bits of the last base32 character; go-algorand
  // (UnmarshalChecksumAddress) and the registry require the canonical string
  stricter: (a) =>
    noThrow(() => algosdk.encodeAddress(algosdk.decodeAddress(a).publicKey) !== a) ? "non-canonical base32 (unused bits set)" : null,
};

const TEZOS_PREFIXES = [
  PrefixV2.Ed25519PublicKeyHash,
  PrefixV2.Secp256k1PublicKeyHash,
  PrefixV2.P256PublicKeyHash,
  PrefixV2.BLS12_381PublicKeyHash,
  PrefixV2.ContractHash,
] as const;
const tezos: Reference = {
  family: "tezos",
  check: "validateAddress",
  accepts: (a) => validateTezos(a) === ValidationResult.VALID,
  make: (random) => b58Encode(random(20), pick(random, TEZOS_PREFIXES)),
  // taquito also accepts smart-rollup (sr1) addresses and %entrypoint suffixes; not payees
  stricter: (a) => (/^(sr1|txr1)/.test(a) || a.includes("%") ? "rollup addresses and entrypoints are not accounts" : null),
};

const nanoRef: Reference = {
  family: "nano",
  check: "checkAddress",
  accepts: (a) => nano.checkAddress(a),
  make: (random) => nano.deriveAddress(hex(random(32)), { useNanoPrefix: !!(random(1)[0] & 1) }),
};

const stacks: Reference = {
  family: "stacks",
  check: "c32addressDecode (versions 22, 20)",
  accepts: (a) => noThrow(() => [22, 20].includes(c32.c32addressDecode(a)[0])),
  make: (random) => c32.c32address(pick(random, [22, 20]), hex(random(20))),
};

const ADDR_BOUND = (1n << 251n) - 256n; // starknet.js constants.ADDR_BOUND
const starknet: Reference = {
  family: "starknet",
  check: "validateAndParseAddress",
  accepts: (a) => noThrow(() => validateAndParseAddress(a)),
  make: (random) => {
    let v = 0n;
    for (const b of random(32)) v = (v << 8n) | BigInt(b);
    v = (1n << 160n) + (v % (ADDR_BOUND - (1n << 160n)));
    const h = v.toString(16);
    return `0x${random(1)[0] & 1 ? h.padStart(64, "0") : h}`;
  },
  stricter: (a) => {
    if (!/^0x/.test(a)) return "the 0x prefix is required (starknet.js adds it)";
    if (noThrow(() => BigInt(a) < 1n << 160n)) return "values below 2^160 are Ethereum-sized (issue 14)";
    if (a.length > 66) return "more than 64 hex digits";
    return null;
  },
};

const solana: Reference = {
  family: "solana",
  check: "isAddress",
  accepts: (a) => isSolanaAddress(a),
  make: (random) => getAddressDecoder().decode(random(32)),
  // a real key renders without an upper-case letter with probability ~6e-7; such strings are
  // far more likely bech32 or hex addresses of other chains
  stricter: (a) => (!/[A-Z]/.test(a) || /^xdc[0-9a-fA-F]{40}$/.test(a) ? "no upper-case letter (cross-chain paste guard)" : null),
};

const neo3: Reference = {
  family: "neo3",
  check: "wallet.isAddress(address, 53)",
  accepts: (a) => neoWallet.isAddress(a, 53),
  make: (random) => neoWallet.getAddressFromScriptHash(hex(random(20)), 53),
};

const wavesRef: Reference = {
  family: "waves",
  check: "verifyAddress(chainId W)",
  accepts: (a) => noThrow(() => waves.verifyAddress(a, { chainId: "W" })),
  make: (random) => waves.address({ publicKey: random(32) }, "W"),
};

const conflux: Reference = {
  family: "conflux",
  check: "decode (net 1029)",
  accepts: (a) => noThrow(() => cfx.decode(a).netId === 1029),
  make: (random) => {
    const h = random(20);
    h[0] = (random(1)[0] & 1 ? 0x10 : 0x80) | (h[0] & 0x0f); // user or contract
    return cfx.encode(Buffer.from(h), 1029, !!(random(1)[0] & 1));
  },
  stricter: (a) => {
    const d = noThrow(() => cfx.decode(a)) ? cfx.decode(a) : null;
    if (!d) return null;
    if (d.hexAddress.every((b: number) => b === 0)) return "the null address";
    if (!["user", "contract", "builtin"].includes(d.type)) return `address type ${d.type}`;
    if (a !== a.toLowerCase() && a !== a.toUpperCase()) return "mixed case";
    return null;
  },
};

const filecoin: Reference = {
  family: "filecoin",
  check: "validateAddressString (f network)",
  accepts: (a) => a.startsWith("f") && fil.validateAddressString(a),
  make: (random) => {
    const k = random(1)[0] % 4;
    if (k === 0) return fil.encode("f", fil.newAddress(fil.Protocol.SECP256K1, random(20)));
    if (k === 1) return fil.encode("f", fil.newAddress(fil.Protocol.ACTOR, random(20)));
    if (k === 2) return fil.encode("f", fil.newBLSAddress(random(48)));
    return fil.delegatedFromEthAddress(`0x${hex(random(20))}`, fil.CoinType.MAIN);
  },
  stricter: (a) => {
    if (/^f0/.test(a)) return "f0 ID addresses have no checksum";
    // the library ignores the unused bits of the last base32 character; the registry treats a
    // character that differs from the canonical encoding as a typo
    if (noThrow(() => fil.encode("f", fil.newFromString(a)) !== a)) return "non-canonical base32 (unused bits set)";
    if (/^f4/.test(a) && !a.startsWith("f410f")) return "only the EVM (f410) delegated namespace";
    return null;
  },
};

const nemFacade = new NemFacade("mainnet");
const nem: Reference = {
  family: "nem",
  check: "NemFacade('mainnet').network.isValidAddressString",
  accepts: (a) => nemFacade.network.isValidAddressString(a),
  make: (random) => nemFacade.network.publicKeyToAddress(new PublicKey(random(32))).toString(),
};

const LINA = predefined.LINA;
const ckb: Reference = {
  family: "bech32m:ckb",
  check: "parseAddress (LINA)",
  accepts: (a) => noThrow(() => parseAddress(a, { config: LINA })),
  make: (random) => {
    const lock = pick(random, [LINA.SCRIPTS.SECP256K1_BLAKE160!, LINA.SCRIPTS.SECP256K1_BLAKE160_MULTISIG!, LINA.SCRIPTS.ANYONE_CAN_PAY!]);
    return encodeToAddress({ codeHash: lock.CODE_HASH, hashType: lock.HASH_TYPE, args: `0x${hex(random(20))}` }, { config: LINA });
  },
};

// bech32 account chains: HRP and payload sizes from each chain's address docs (Cosmos SDK
// accounts are 20 bytes, module/ICA/contract accounts 32; MultiversX 32; Oasis 21 with a
// leading version 0; Chia puzzle hashes 32 in bech32m).
const BECH32: Array<[string, string, number[], "bech32" | "bech32m"]> = [
  ["bech32:cosmos", "cosmos", [20, 32], "bech32"],
  ["bech32:osmo", "osmo", [20, 32], "bech32"],
  ["bech32:inj", "inj", [20], "bech32"],
  ["bech32:sei", "sei", [20, 32], "bech32"],
  ["bech32:celestia", "celestia", [20, 32], "bech32"],
  ["bech32:akash", "akash", [20, 32], "bech32"],
  ["bech32:kava", "kava", [20, 32], "bech32"],
  ["bech32:thor", "thor", [20, 32], "bech32"],
  ["bech32:terra", "terra", [20, 32], "bech32"],
  ["bech32:band", "band", [20, 32], "bech32"],
  ["bech32:secret", "secret", [20, 32], "bech32"],
  ["bech32:dydx", "dydx", [20, 32], "bech32"],
  ["bech32:cro", "cro", [20, 32], "bech32"],
  ["bech32:noble", "noble", [20, 32], "bech32"],
  ["bech32:erd", "erd", [32], "bech32"],
  ["bech32:zil", "zil", [20], "bech32"],
  ["bech32:one", "one", [20], "bech32"],
  ["bech32:oasis", "oasis", [21], "bech32"],
  ["bech32m:xch", "xch", [32], "bech32m"],
  ["bech32:bnb", "bnb", [20], "bech32"],
];
const bechRefs: Reference[] = BECH32.map(([family, hrp, lengths, variant]) => {
  const codec = variant === "bech32" ? bech32 : bech32m;
  return {
    family,
    check: `${variant}.decode, hrp ${hrp}, ${lengths.join("/")} bytes`,
    accepts: (a) =>
      noThrow(() => {
        const d = codec.decode(a, 90);
        const bytes = codec.fromWords(d.words);
        return d.prefix === hrp && lengths.includes(bytes.length) && (family !== "bech32:oasis" || bytes[0] === 0);
      }),
    make: (random) => {
      const bytes = random(pick(random, lengths));
      if (family === "bech32:oasis") bytes[0] = 0;
      const a = codec.encode(hrp, codec.toWords(bytes), 90);
      return random(1)[0] % 8 === 0 ? a.toUpperCase() : a;
    },
  };
});

describe("differential: account chains", () => {
  runDifferential("viem", [evm, xdc]);
  runDifferential("ripple-address-codec", [xrp]);
  runDifferential("@stellar/stellar-base", [stellar]);
  runDifferential("@polkadot/util-crypto", [ss58("ss58:0", 0), ss58("ss58:2", 2), ss58("ss58:42", 42)]);
  runDifferential("@ton/core", [ton]);
  runDifferential("algosdk", [algorand]);
  runDifferential("@taquito/utils", [tezos]);
  runDifferential("nanocurrency", [nanoRef]);
  runDifferential("c32check", [stacks]);
  runDifferential("starknet", [starknet]);
  runDifferential("@solana/addresses", [solana]);
  runDifferential("@cityofzion/neon-core", [neo3]);
  runDifferential("@waves/ts-lib-crypto", [wavesRef]);
  runDifferential("@conflux-dev/conflux-address-js", [conflux]);
  runDifferential("@glif/filecoin-address", [filecoin]);
  runDifferential("symbol-sdk", [nem]);
  runDifferential("@ckb-lumos/helpers", [ckb]);
  runDifferential("bech32", bechRefs);
});
