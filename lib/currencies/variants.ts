// Single-character substitution variants of a vector, within the alphabet of the part of the
// address that carries the checksum. Used by the tests and the registry report.
const B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const XRP58 = "rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz";
const BECH = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
const CFX = "abcdefghjkmnprstuvwxyz0123456789";
const RFC32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const B64STD = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const NANO = "13456789abcdefghijkmnopqrstuwxyz";
const C32 = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const HEXL = "0123456789abcdef";
const HEXMIX = "0123456789abcdefABCDEF";

export interface VariantSpec {
  /** first index (inclusive) of the substituted region */
  from: number;
  alphabet: string;
}

function caseOf(s: string, alpha: string): string {
  return s === s.toUpperCase() && s !== s.toLowerCase() ? alpha.toUpperCase() : alpha;
}

/** How to mutate `address` of `family`; null for format-only families (no checksum to test). */
export function variantSpec(family: string, address: string): VariantSpec | null {
  const sep = address.lastIndexOf("1");
  const afterColon = address.lastIndexOf(":") + 1;
  if (family.startsWith("bech32") || (family === "cardano" && address.startsWith("addr"))) {
    return { from: sep + 1, alphabet: caseOf(address, BECH) };
  }
  if (family.startsWith("utxo:")) {
    if (/^(bc|ltc|dgb|qc|btg|tex|zs)1/i.test(address)) return { from: sep + 1, alphabet: caseOf(address, BECH) };
    return { from: 0, alphabet: B58 };
  }
  switch (family) {
    case "cashaddr:bch":
    case "cashaddr:ecash":
    case "cashaddr:kaspa":
      return { from: afterColon, alphabet: caseOf(address, BECH) };
    case "conflux":
      return { from: afterColon, alphabet: caseOf(address, CFX) };
    case "xrp":
      return { from: 0, alphabet: XRP58 };
    case "stellar":
    case "algorand":
    case "nem":
      return { from: 0, alphabet: RFC32 };
    case "ton":
      return { from: 0, alphabet: /[+/]/.test(address) ? B64STD : B64URL };
    case "nano":
      return { from: address.indexOf("_") + 1, alphabet: NANO };
    case "filecoin":
      return { from: address.startsWith("f4") ? address.indexOf("f", 2) + 1 : 2, alphabet: "abcdefghijklmnopqrstuvwxyz234567" };
    case "stacks":
      return { from: 1, alphabet: C32 };
    case "ardor":
      return { from: 6, alphabet: "23456789ABCDEFGHJKLMNPQRSTUVWXYZ" };
    case "icp-account":
    case "siacoin":
      return { from: 0, alphabet: HEXL };
    case "flow":
      return { from: 2, alphabet: HEXL };
    case "evm":
      return { from: 2, alphabet: HEXMIX };
    case "evm:xdc":
      return { from: address.startsWith("0x") ? 2 : 3, alphabet: HEXMIX };
    case "cardano":
    case "tron":
    case "monero":
    case "tezos":
    case "neo3":
    case "ontology":
    case "waves":
    case "mina":
    case "decred":
    case "ergo":
    case "ss58:0":
    case "ss58:2":
    case "ss58:42":
      return { from: 0, alphabet: B58 };
    case "bech32m:ckb":
      return { from: sep + 1, alphabet: BECH };
    default:
      return null;
  }
}

/** Every string that differs from `address` in exactly one position of the checksummed region. */
export function* singleCharVariants(address: string, spec: VariantSpec): Generator<string> {
  for (let i = spec.from; i < address.length; i++) {
    const orig = address[i];
    if (!spec.alphabet.includes(orig)) continue; // separators, dashes, type labels
    for (const c of spec.alphabet) {
      if (c === orig) continue;
      yield address.slice(0, i) + c + address.slice(i + 1);
    }
  }
}
