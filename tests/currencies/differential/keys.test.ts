// Differential tests for the families whose addresses carry keys or structures a plain codec
// cannot check: Cardano (cardano-serialization-lib), Ergo (ergo-lib), Monero (monero-ts),
// Mina (mina-signer). Monero-ts validates through WebAssembly at a few ms per address, so its
// budgets are smaller.
import * as ecc from "@bitcoinerlab/secp256k1";
import * as CSL from "@emurgo/cardano-serialization-lib-nodejs";
import { ed25519 } from "@noble/curves/ed25519.js";
import * as ergo from "ergo-lib-wasm-nodejs";
import Client from "mina-signer";
import moneroTs from "monero-ts";
import { describe } from "vitest";
import type { Random } from "../../../lib/currencies/families/util";
import { type Reference, runDifferential } from "./harness";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const noThrow = (f: () => unknown) => {
  try {
    return f() !== false;
  } catch {
    return false;
  }
};

const MAINNET_PROTOCOL_MAGIC = 764824073;
const keyHash = (random: Random) => CSL.Credential.from_keyhash(CSL.Ed25519KeyHash.from_bytes(random(28)));
const scriptHash = (random: Random) => CSL.Credential.from_scripthash(CSL.ScriptHash.from_bytes(random(28)));
const credential = (random: Random) => (random(1)[0] & 1 ? keyHash(random) : scriptHash(random));

const cardano: Reference = {
  family: "cardano",
  check: "Address.from_bech32 / ByronAddress.from_base58, network 1, payment address",
  accepts(a) {
    if (a.slice(0, 5).toLowerCase() === "addr1") {
      return noThrow(() => {
        const addr = CSL.Address.from_bech32(a);
        const payment =
          CSL.BaseAddress.from_address(addr) ?? CSL.EnterpriseAddress.from_address(addr) ?? CSL.PointerAddress.from_address(addr);
        return addr.network_id() === 1 && payment !== undefined;
      });
    }
    return noThrow(() => CSL.ByronAddress.is_valid(a) && CSL.ByronAddress.from_base58(a).network_id() === 1);
  },
  make(random) {
    const k = random(1)[0] % 4;
    if (k === 0) return CSL.BaseAddress.new(1, credential(random), credential(random)).to_address().to_bech32();
    if (k === 1) return CSL.EnterpriseAddress.new(1, credential(random)).to_address().to_bech32();
    if (k === 2) {
      const [a, b, c] = random(3);
      const n = (x: number) => CSL.BigNum.from_str(String(x * 9973));
      return CSL.PointerAddress.new(1, credential(random), CSL.Pointer.new_pointer(n(a), n(b), n(c)))
        .to_address()
        .to_bech32();
    }
    // a Byron (Icarus) address of an extended public key: a real ed25519 point and a chain code
    let scalar = 0n;
    for (const b of random(40)) scalar = (scalar << 8n) | BigInt(b);
    const point = ed25519.Point.BASE.multiply((scalar % (ed25519.Point.CURVE().n - 1n)) + 1n).toBytes();
    const xpub = CSL.Bip32PublicKey.from_bytes(Uint8Array.from([...point, ...random(32)]));
    return CSL.ByronAddress.icarus_from_key(xpub, MAINNET_PROTOCOL_MAGIC).to_base58();
  },
};

const ergoRef: Reference = {
  family: "ergo",
  check: "Address.from_mainnet_str",
  accepts: (a) => noThrow(() => ergo.Address.from_mainnet_str(a)),
  make(random) {
    let k = random(32);
    while (!ecc.isPrivate(k)) k = random(32);
    return ergo.Address.from_public_key(ecc.pointFromScalar(k, true)!).to_base58(ergo.NetworkPrefix.Mainnet);
  },
  // ergo-lib accepts pay-to-script addresses of any length, down to a few bytes of script
  // ("4MQyML64GnzMxZgm" in sigma-rust's docs); the registry takes P2S only from 30 characters.
  stricter: (a) => (a.length < 30 ? "P2S scripts under 30 characters are not deposit addresses" : null),
};

const monero: Reference = {
  family: "monero",
  check: "MoneroUtils.isValidAddress (mainnet)",
  accepts: (a) => moneroTs.MoneroUtils.isValidAddress(a, moneroTs.MoneroNetworkType.MAINNET),
  async make(random) {
    const spend = random(32);
    spend[31] &= 0x0f; // below the group order: a reduced private spend key
    const wallet = await moneroTs.createWalletKeys({ networkType: moneroTs.MoneroNetworkType.MAINNET, privateSpendKey: hex(spend) });
    const primary = await wallet.getPrimaryAddress();
    const k = random(1)[0] % 3;
    if (k === 0) return primary;
    if (k === 1) return wallet.getAddress(0, 1 + (random(1)[0] % 50)); // subaddress
    return moneroTs.MoneroUtils.getIntegratedAddress(moneroTs.MoneroNetworkType.MAINNET, primary, hex(random(8))).then((i) =>
      i.getIntegratedAddress(),
    );
  },
  made: 60,
  corruptionsEach: 5,
};

const minaClient = new Client({ network: "mainnet" });
const mina: Reference = {
  family: "mina",
  check: "publicKeyToRaw",
  accepts: (a) => noThrow(() => minaClient.publicKeyToRaw(a)),
  // mina-signer takes its keys from the platform's random source, not from `random`
  make: () => minaClient.genKeys().publicKey,
  made: 150,
};

describe("differential: key-carrying addresses", () => {
  runDifferential("@emurgo/cardano-serialization-lib-nodejs", [cardano]);
  runDifferential("ergo-lib-wasm-nodejs", [ergoRef]);
  runDifferential("monero-ts", [monero]);
  runDifferential("mina-signer", [mina]);
});
