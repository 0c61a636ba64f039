// The family table: one validator + generator per address family key.

import { ardorFamily } from "./ardor";
import { decredFamily, ergoFamily, minaFamily, neo3Family, ontologyFamily, tezosFamily, tronFamily, wavesFamily } from "./base58chains";
import { bechFamily } from "./bech32";
import { cardanoFamily } from "./cardano";
import { cashaddrFamily, kaspaFamily } from "./cashaddr";
import { evmFamily, xdcFamily } from "./evm";
import { flowFamily } from "./flow";
import {
  arweaveFamily,
  casperFamily,
  eosioFamily,
  grapheneFamily,
  hederaFamily,
  hex32Family,
  iconFamily,
  kadenaFamily,
  nearFamily,
  solanaFamily,
  starknetFamily,
} from "./format";
import {
  algorandFamily,
  ckbFamily,
  confluxFamily,
  filecoinFamily,
  icpFamily,
  nanoFamily,
  nemFamily,
  siacoinFamily,
  stacksFamily,
  zcashFamily,
} from "./misc";
import { moneroFamily } from "./monero";
import { stellarFamily } from "./stellar";
import { ss58Family } from "./substrate";
import { tonFamily } from "./ton";
import type { AddressFamily } from "./types";
import { UTXO_PARAMS, utxoFamily } from "./utxo";
import { xrpFamily } from "./xrp";

export type { AddressFamily } from "./types";

const list: AddressFamily[] = [];

for (const [coin, p] of Object.entries(UTXO_PARAMS)) {
  list.push(coin === "zec" ? zcashFamily : utxoFamily(`utxo:${coin}`, p, p.accepts));
}

list.push(
  cashaddrFamily(
    "cashaddr:bch",
    "bitcoincash",
    [0, 1, 2, 3],
    [20, 32],
    "bitcoincash:q/p/z/r... CashAddr (prefix optional, P2PKH/P2SH/P2SH32, CashTokens); legacy base58 and bchtest: rejected",
  ),
  cashaddrFamily("cashaddr:ecash", "ecash", [0, 1], [20], "ecash:q/p... CashAddr (prefix optional); ectest: rejected"),
  kaspaFamily,
  evmFamily,
  xdcFamily,
  xrpFamily,
  stellarFamily,
  tronFamily,
  solanaFamily,
  cardanoFamily,
  ss58Family(0, "Polkadot SS58 prefix 0 (1...); other networks' prefixes rejected"),
  ss58Family(2, "Kusama SS58 prefix 2 (C.../D.../E.../F.../G.../H.../J...)"),
  ss58Family(42, "generic Substrate SS58 prefix 42 (5...), used by Bittensor"),
  moneroFamily,
  nanoFamily,
  algorandFamily,
  tezosFamily,
  eosioFamily,
  hederaFamily,
  nearFamily,
  hex32Family,
  tonFamily,
  icpFamily,
  filecoinFamily,
  neo3Family,
  ontologyFamily,
  iconFamily,
  wavesFamily,
  nemFamily,
  stacksFamily,
  casperFamily,
  flowFamily,
  minaFamily,
  arweaveFamily,
  ckbFamily,
  confluxFamily,
  kadenaFamily,
  siacoinFamily,
  ardorFamily,
  grapheneFamily,
  ergoFamily,
  starknetFamily,
  decredFamily,
);

// bech32 account families: [key, hrp, allowed payload lengths, accepts]
const BECH: Array<[string, string, number[], string, ("bech32" | "bech32m")?, ((b: Uint8Array) => boolean)?]> = [
  ["bech32:cosmos", "cosmos", [20, 32], "cosmos1... (20-byte account or 32-byte module/ICA account)"],
  ["bech32:osmo", "osmo", [20, 32], "osmo1..."],
  ["bech32:inj", "inj", [20], "inj1... (20 bytes)"],
  ["bech32:sei", "sei", [20, 32], "sei1..."],
  ["bech32:celestia", "celestia", [20, 32], "celestia1..."],
  ["bech32:akash", "akash", [20, 32], "akash1..."],
  ["bech32:kava", "kava", [20, 32], "kava1..."],
  ["bech32:thor", "thor", [20, 32], "thor1... (tthor/sthor testnet/stagenet rejected)"],
  ["bech32:terra", "terra", [20, 32], "terra1... (Terra and Terra Classic)"],
  ["bech32:band", "band", [20, 32], "band1..."],
  ["bech32:secret", "secret", [20, 32], "secret1..."],
  ["bech32:dydx", "dydx", [20, 32], "dydx1..."],
  ["bech32:cro", "cro", [20, 32], "cro1... (tcro testnet rejected)"],
  ["bech32:noble", "noble", [20, 32], "noble1..."],
  ["bech32:erd", "erd", [32], "erd1... (32-byte MultiversX account)"],
  ["bech32:zil", "zil", [20], "zil1... (Zilliqa bech32)"],
  ["bech32:one", "one", [20], "one1... (Harmony bech32)"],
  ["bech32:oasis", "oasis", [21], "oasis1... (version 0 + 20 bytes)", "bech32", (b) => b[0] === 0],
  ["bech32m:xch", "xch", [32], "xch1... (bech32m puzzle hash); txch rejected", "bech32m"],
  ["bech32:bnb", "bnb", [20], "bnb1... (BNB Beacon Chain, retired); tbnb rejected"],
];
for (const [key, hrp, lengths, accepts, variant, check] of BECH) list.push(bechFamily(key, hrp, lengths, accepts, variant, check));

export const FAMILY_MAP: ReadonlyMap<string, AddressFamily> = new Map(list.map((f) => [f.key, f]));
if (FAMILY_MAP.size !== list.length) throw new Error("duplicate address family key");

export function getFamily(key: string): AddressFamily | undefined {
  return FAMILY_MAP.get(key);
}
