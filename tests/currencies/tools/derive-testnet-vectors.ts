// One-off: derive testnet forms from real mainnet vectors (re-encode the same payload with the
// chain's testnet version/prefix). Output pasted into lib/currencies/vectors.ts.

import { blake256 } from "@noble/hashes/blake1.js";
import { blake2b } from "@noble/hashes/blake2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { base58, base58xmr, bech32, bech32m } from "@scure/base";
import { cashDecode, cashEncode } from "../../../lib/currencies/families/cashaddr";
import { b58checkDecode, b58checkEncode, b58decode, concat, sha256d } from "../../../lib/currencies/families/util";

const out: Record<string, string> = {};
function reB58(addr: string, strip: number, ver: number[], hash?: (d: Uint8Array) => Uint8Array) {
  const p = b58checkDecode(addr, hash)!;
  return b58checkEncode(concat(Uint8Array.from(ver), p.subarray(strip)), hash);
}
out["utxo:ltc"] = reB58("LT2KVaAy1ppRuxRgrS5RNU3vBsy7RibPeA", 1, [0x6f]);
out["utxo:dash"] = reB58("XpESxaUmonkq8RaLLp46Brx2K39ggQe226", 1, [0x8c]);
out["utxo:rvn"] = reB58("RXBurnXXXXXXXXXXXXXXXXXXXXXXWUo9FV", 1, [0x6f]);
out["utxo:bsv"] = reB58("1AGNa15ZQXAZUgFiqJ2i7Z2DPU2J6hW62i", 1, [0x6f]);
out["utxo:zec"] = reB58("t1h8SqgtM3QM5e2M8EzhhT1yL2PXXtA6oqe", 2, [0x1d, 0x25]);
out["utxo:firo"] = reB58("aLgRaYSFk6iVw2FqY1oei8Tdn2aTsGPVmP", 1, [0x41]);
out.decred = reB58("DsUZxxoHJSty8DCfwfartwTYbuhmVct7tJu", 2, [0x0f, 0x21], (d) => blake256(blake256(d)));
out["cashaddr:bch"] = cashEncode("bchtest", cashDecode("bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a", "bitcoincash", true)!);
out["cashaddr:ecash"] = cashEncode("ectest", cashDecode("ecash:qpm2qsznhks23z7629mms6s4cwef74vcwva87rkuu2", "ecash", true)!);
out["cashaddr:kaspa"] = cashEncode(
  "kaspatest",
  cashDecode("kaspa:qqkqkzjvr7zwxxmjxjkmxxdwju9kjs6e9u82uh59z07vgaks6gg62v8707g73", "kaspa", false)!,
);
{
  const raw = base58xmr.decode("888tNkZrPN6JsEgekjMnABU4TBzc2Dt29EPAvkRxbANsAnjyPbb3iQ1YBRk1UXcdRsiKc9dhwMVgN5S9cQUiyoogDavup3H");
  const body = concat(Uint8Array.of(53), raw.subarray(1, raw.length - 4));
  out.monero = base58xmr.encode(concat(body, keccak_256(body).subarray(0, 4)));
}
{
  const raw = b58decode("3PAWwWa6GbwcJaFzwqXQN5KQm7H96Y7SHTQ")!;
  const body = concat(Uint8Array.of(1, 0x54), raw.subarray(2, 22));
  out.waves = base58.encode(concat(body, keccak_256(blake2b(body, { dkLen: 32 })).subarray(0, 4)));
}
{
  const raw = b58decode("9fRAWhdxEsTcdb8PhGNrZfwqa65zfkuYHAMmkQLcic1gdLSV5vA")!;
  const body = concat(Uint8Array.of(0x11), raw.subarray(1, raw.length - 4));
  out.ergo = base58.encode(concat(body, blake2b(body, { dkLen: 32 }).subarray(0, 4)));
}
function reBech(addr: string, hrp: string, codec = bech32, limit = 90) {
  const d = codec.decode(addr as any, limit);
  return codec.encode(hrp, d.words, limit);
}
out["bech32m:ckb"] = reBech(
  "ckb1qzda0cr08m85hc8jlnfp3zer7xulejywt49kt2rr0vthywaa50xwsqdnnw7qkdnnclfkg59uzn8umtfd2kwxceqxwquc4",
  "ckt",
  bech32m,
  1000,
);
out["bech32:bnb"] = reBech("bnb1grpf0955h0ykzq3ar5nmum7y6gdfl6lxfn46h2", "tbnb");
out["bech32:thor"] = reBech("thor1dheycdevq39qlkxs2a6wuuzyn4aqxhve4qxtxt", "tthor");
out.filecoin = `t${"f1abjxfbp274xpdqcpuaykwkfb43omjotacm2p3za".slice(1)}`;
{
  // stacks testnet: version 26 ('T') for the same hash160
  const C32 = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  const dec = (s: string) => {
    let n = 0n;
    for (const c of s) n = n * 32n + BigInt(C32.indexOf(c));
    let h = n.toString(16);
    if (h.length % 2) h = `0${h}`;
    return Uint8Array.from(h.match(/../g)!.map((x) => parseInt(x, 16)));
  };
  const enc = (d: Uint8Array) => {
    let n = 0n;
    for (const b of d) n = (n << 8n) | BigInt(b);
    let s = "";
    while (n > 0n) {
      s = C32[Number(n & 31n)] + s;
      n >>= 5n;
    }
    let z = 0;
    while (d[z] === 0) {
      s = `0${s}`;
      z++;
    }
    return s;
  };
  const hash = dec("2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7").subarray(0, 20);
  const sum = sha256d(concat(Uint8Array.of(26), hash)).subarray(0, 4);
  out.stacks = `ST${enc(concat(hash, sum))}`;
}
{
  // conflux testnet: prefix cfxtest (net 1)
  const { cashPolymod } = await import("../../../lib/currencies/families/cashaddr");
  const { convertBits, makeBase32 } = await import("../../../lib/currencies/families/util");
  const CFX = makeBase32("abcdefghjkmnprstuvwxyz0123456789");
  const words = CFX.toWords("aak2rra2njvd77ezwjvx04kkds9fzagfe6ku8scz91")!.slice(0, -8);
  const pre = [..."cfxtest"].map((c) => c.charCodeAt(0) & 31).concat(0);
  const mod = cashPolymod([...pre, ...words, 0, 0, 0, 0, 0, 0, 0, 0]);
  const sum: number[] = [];
  for (let i = 0; i < 8; i++) sum.push(Number((mod >> BigInt(5 * (7 - i))) & 31n));
  out.conflux = `cfxtest:${CFX.fromWords([...words, ...sum])}`;
  void convertBits;
}
console.log(JSON.stringify(out, null, 1));
