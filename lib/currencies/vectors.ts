// Address test vectors per family: real mainnet addresses with the place they were taken from,
// testnet/wrong-network forms that must be rejected, and the provenance of each.
//
// Provenance kinds:
//   "sourced"  - copied from the named file/document (repo + path, or spec name).
//   "recalled" - a real, published address quoted from the named document without a file
//                read during this work; it passes the family's checksum (so it is not a typo),
//                but its exact location should be re-checked by a maintainer.
//   "found"    - a real address found in public source code by exact-string search; the
//                context is noted, the exact file was not recorded by the search tool.
//   "derived"  - testnet forms only: the payload of a sourced mainnet vector re-encoded with the
//                chain's testnet version byte / HRP / prefix (from the chain's parameters), used to
//                prove that testnet encodings are rejected. Never used as a "valid" vector.
//
// Not imported by index.ts (keeps the runtime bundle small); used by tests and the report.

export type Provenance = "sourced" | "recalled" | "found" | "derived";
export interface Vector {
  address: string;
  source: string;
  kind: Provenance;
}
export interface FamilyVectors {
  valid: Vector[];
  /** testnet (or other non-mainnet) encodings: must be rejected */
  testnet: Vector[];
  /** why there is no testnet vector, when there is none */
  noTestnet?: string;
}

const S = (address: string, source: string): Vector => ({ address, source, kind: "sourced" });
const R = (address: string, source: string): Vector => ({ address, source, kind: "recalled" });
const D = (address: string, source: string): Vector => ({ address, source, kind: "derived" });
const F = (address: string, source: string): Vector => ({ address, source, kind: "found" });

const BJS = "bitcoinjs/bitcoinjs-lib test/fixtures/address.json";
const LTC = "litecoin-project/litecoin src/test/data/key_io_valid.json";
const DOGE = "dogecoin/dogecoin src/test/data/base58_keys_valid.json";
const DGB = "digibyte/digibyte src/test/data/key_io_valid.json";
const QTUM = "qtumproject/qtum src/test/data/key_io_valid.json";
const ZEN = "HorizenOfficial/zen src/test/data/base58_keys_valid.json";
const XRPC = "XRPLF/xrpl.js packages/ripple-address-codec (README.md and test/)";
const SEP23 = "stellar/stellar-protocol ecosystem/sep-0023.md";
const CASHADDR = "bitcoincashorg spec/cashaddr.md (conversion examples)";
const CIP19 = "cardano-foundation/CIPs CIP-0019/README.md (test vectors)";
const EIP55 = "ethereum/EIPs EIPS/eip-55.md";
const CJS = "input-output-hk/cardano-js-sdk packages/core test (parseCmlAddress address fixtures)";
const SAME_FORMAT = "testnets use the same address encoding as mainnet (no distinct testnet form to reject)";

export const VECTORS: Record<string, FamilyVectors> = {
  "utxo:btc": {
    valid: [
      S("1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH", BJS),
      S("3LRW7jeCvQCRdPF8S3yUCfRAx4eqXFmdcr", BJS),
      S("BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4", BJS),
      R("bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3", "bitcoin/bips bip-0173.mediawiki (test vectors)"),
      R("bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0", "bitcoin/bips bip-0350.mediawiki (test vectors)"),
    ],
    testnet: [
      S("mrCDrCybB6J1vRfbwM5hemdJz73FwDBC8r", BJS),
      S("tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7", BJS),
    ],
  },
  "utxo:ltc": {
    valid: [
      S("LT2KVaAy1ppRuxRgrS5RNU3vBsy7RibPeA", LTC),
      S("MHrYRxAiMNBTku3eoDHwhA1LQGDjUStZW2", LTC),
      S("MCZjFcwYJwwYqXAbd3bbnxaCVGs81cp43Z", BJS + " (litecoin network)"),
      S("LUxXFcwXFPpRZdMv4aYu6bDwPdC2skQ5YW", BJS + " (litecoin network)"),
    ],
    testnet: [
      S("QXaUgLHkZcbJb2j5XgMYzY8cF9YM48Y81Z", LTC + " (chain: test)"),
      D("moKKXQx7kC1dSGD9Ps4VvNCUqfCYB2SqN8", "LT2KVaAy... re-encoded with testnet version 0x6f"),
    ],
  },
  "utxo:doge": {
    valid: [
      S("DD4KSSuBJqcjuTcvUg1CgUKeurPUFeEZkE", DOGE),
      S("A7HRQk3GFCW2QasvdZxXuYj8kkQK5QrYLs", DOGE),
      S("DBjW6kna7rUPE4Mj9j4B3oK3xVA1SDHrdt", DOGE),
    ],
    testnet: [S("nhRsrUaxZou6sewjqaS37cJrMRJRgwVXdk", DOGE + " (isTestnet)"), S("2MsvyG12kxxipe276Au4zKqvd2xdrBuHWb3", DOGE + " (isTestnet)")],
  },
  "utxo:dash": {
    valid: [
      R("XpESxaUmonkq8RaLLp46Brx2K39ggQe226", "dashevo/dashcore-lib test/address.js"),
      R("7gnwGHt17heGpG9Crfeh4KGpYNFugPhJdh", "dashevo/dashcore-lib test/address.js (P2SH)"),
    ],
    testnet: [D("yZs3yXZDFLQuUAVsufNVDtNNbKe49EwkYa", "XpESxaUm... re-encoded with testnet version 0x8c")],
  },
  "utxo:dgb": {
    valid: [
      S("DSC6tGC2NvN6AHio2p8pU4seTbPKDi7KZb", DGB),
      S("SefNWSMmXAxc4N8sxHyg8hHXTTU9GojgzX", DGB),
      S("dgb1qhyz5jznu8rxjz6emktwwkz5m0m4gr9q9rvhegc", DGB),
      S("dgb1pva0l3ng2q0gt2t3rqqpqxk5y57l4u0xyryxdslrt76k5u54rvpssjpmuhq", DGB),
    ],
    testnet: [S("sxnDwNPKaPKZd5ZgJfVfom8cX4ZJkYr1zL", DGB + " (chain: test)"), S("dgbt1qznyt7p9zln65ydpuzfq8ksuz4hkvcwdl9qtcty", DGB + " (chain: test)")],
  },
  "utxo:rvn": {
    valid: [
      R("RXBurnXXXXXXXXXXXXXXXXXXXXXXWUo9FV", "RavenProject/Ravencoin src/chainparams.cpp (strGlobalBurnAddress)"),
      R("RXissueAssetXXXXXXXXXXXXXXXXXhhZGt", "RavenProject/Ravencoin src/chainparams.cpp (strIssueAssetBurnAddress)"),
    ],
    testnet: [D("n3Rg5KjDjjADEddwmvWnFvQedFfdnM1VAt", "RXBurn... re-encoded with testnet version 0x6f")],
  },
  "utxo:qtum": {
    valid: [
      S("QX3gQrQsGHwsESPgme7iNHUJ4TTLjFp9pg", QTUM),
      S("MSDh4T9bbVJGP4tGRSEsEKED5eeSTgLXee", QTUM),
      S("qc1q5cuatynjmk4szh40mmunszfzh7zrc5xmfay5c7", QTUM),
      S("qc1p5rgvqejqh9dh37t9g94dd9cm8vtqns7dndgj423egwggsggcdzmsr55sv7", QTUM),
    ],
    testnet: [S("qKMLfF2HAvN23XSTQmEb41G3vc8FpXxD14", QTUM + " (chain: test)"), S("tq1q74fxwnvhsue0l8wremgq66xzvn48jlc5xgw3xd", QTUM + " (chain: test)")],
  },
  "utxo:bsv": {
    valid: [
      R("1AGNa15ZQXAZUgFiqJ2i7Z2DPU2J6hW62i", "bitcoin-sv/bitcoin-sv src/test/data/base58_keys_valid.json (inherited from Bitcoin Core)"),
      R("1Ax4gZtb7gAit2TivwejZHYtNNLT18PUXJ", "bitcoin-sv/bitcoin-sv src/test/data/base58_keys_valid.json (inherited from Bitcoin Core)"),
    ],
    testnet: [D("mpnKs4AYDYbpFnjLYs15wUEYFTd13EyCvs", "1AGNa15Z... re-encoded with testnet version 0x6f")],
  },
  "utxo:zec": {
    valid: [
      S("t1h8SqgtM3QM5e2M8EzhhT1yL2PXXtA6oqe", "zcash/zcash src/test/key_tests.cpp (addr1)"),
      S("t1Xxa5ZVPKvs9bGMn7aWTiHjyHvR31XkUst", "zcash/zcash src/test/key_tests.cpp (addr2)"),
      R("tex1s2rt77ggv6q989lr49rkgzmh5slsksa9khdgte", "zcash/zips zip-0320.rst (example TEX address)"),
      R("zs1z7rejlpsa98s2rrrfkwmaxu53e4ue0ulcrw0h4x5g8jl04tak0d3mm47vdtahatqrlkngh9slya", "Zcash protocol documentation (Sapling address example)"),
    ],
    testnet: [D("tmYyCAXNkS4ranGYZuj1SJge5dNcMN6xDC7", "t1h8Sqgt... re-encoded with testnet version 1d25")],
  },
  "utxo:firo": {
    valid: [R("aLgRaYSFk6iVw2FqY1oei8Tdn2aTsGPVmP", "firoorg/firo documentation")],
    testnet: [D("TVwAqhNMg2qc2etN7t9ETzqG5TCRkNv3zN", "aLgRaYSF... re-encoded with testnet version 0x41")],
  },
  "utxo:zen": {
    valid: [S("znc3p7CFNTsz1s6CceskrTxKevQLPoDK4cK", ZEN), S("zswRHzwXtwKVmP8ffKKgWz6A7TB97Fuzx7w", ZEN), S("znfXrEPyCmKragUsMMRiLrVeSo34B72e25v", ZEN)],
    testnet: [S("ztkxeiFhYTS5sueyWSMDa8UiNr5so6aDdYi", ZEN + " (isTestnet)"), S("zrQ8QquQTdfHFwcDwsYWxBCPz7uHhJgJ1NB", ZEN + " (isTestnet)")],
  },
  "utxo:xvg": { valid: [], testnet: [], noTestnet: "no sourced mainnet vector yet to derive a testnet form from" },
  "cashaddr:bch": {
    valid: [
      S("bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a", CASHADDR + "; Bitcoin-ABC/bitcoin-abc src/qt/test/uritests.cpp"),
      R("bitcoincash:ppm2qsznhks23z7629mms6s4cwef74vcwvn0h829pq", CASHADDR),
      S("qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a", CASHADDR + " (prefix omitted)"),
    ],
    testnet: [D("bchtest:qpm2qsznhks23z7629mms6s4cwef74vcwvqcw003ap", "spec example payload with the bchtest prefix")],
  },
  "cashaddr:ecash": {
    valid: [
      R("ecash:qpm2qsznhks23z7629mms6s4cwef74vcwva87rkuu2", "Bitcoin-ABC/bitcoin-abc (eCash) cashaddr tests"),
      R("ecash:prfhcnyqnl5cgrnmlfmms675w93ld7mvvqd0y8lz07", "Bitcoin-ABC/bitcoin-abc (eCash) cashaddr tests"),
    ],
    testnet: [D("ectest:qpm2qsznhks23z7629mms6s4cwef74vcwvmvqr33lm", "ecash:qpm2... payload with the ectest prefix")],
  },
  "cashaddr:kaspa": {
    valid: [
      R("kaspa:qqkqkzjvr7zwxxmjxjkmxxdwju9kjs6e9u82uh59z07vgaks6gg62v8707g73", "kaspanet/kaspad util/address_test.go"),
      R("kaspa:precqv0krj3r6uyyfa36ga7s0u9jct0v4wg8ctsfde2gkrsgwgw8jgxfzfc98", "kaspanet/kaspad util/address_test.go (P2SH)"),
    ],
    testnet: [D("kaspatest:qqkqkzjvr7zwxxmjxjkmxxdwju9kjs6e9u82uh59z07vgaks6gg62dpc53k04", "kaspa:qqkqk... payload with the kaspatest prefix")],
  },
  evm: {
    valid: [
      S("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", EIP55),
      S("0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359", EIP55),
      S("0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB", EIP55),
      S("0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb", EIP55),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "evm:xdc": {
    valid: [],
    testnet: [],
    noTestnet: SAME_FORMAT + " (no sourced xdc-prefixed vector yet; the 0x form is covered by the EIP-55 vectors)",
  },
  xrp: {
    valid: [
      S("rGWrZyQqhTp9Xu7G5Pkayo7bXjH4k4QYpf", XRPC),
      S("XVLhHMPHU98es4dbozjVtdWzVrDjtV18pX8yuPT7y4xaEHi", XRPC + " (tag 4294967295)"),
      S("XVLhHMPHU98es4dbozjVtdWzVrDjtV5fdx1mHp98tDMoQXb", XRPC + " (no tag)"),
      R("rPEPPER7kfTD9w2To4CQk6UCfuHM9c6GDY", XRPC),
    ],
    testnet: [S("T7oKJ3q7s94kDH6tpkBowhetT1JKfcfdSCmAXbS75iATyLD", XRPC + " (test X-address)")],
  },
  stellar: {
    valid: [
      R("GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZ", SEP23),
      S("MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVAAAAAAAAAAAAAJLK", SEP23 + "; stellar/go txnbuild tests"),
      S("GB7BDSZU2Y27LYNLALKKALB52WS2IZWYBDGY6EQBLEED3TJOCVMZRH7H", "stellar/go txnbuild operation tests"),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  tron: {
    valid: [
      R("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", "Tether transparency page / TRON docs (USDT TRC-20 contract)"),
      R("TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7", "tronprotocol/tronweb documentation examples"),
      R("TJRabPrwbZy45sbavfcjinPJC18kjpRTv8", "tronprotocol developer documentation examples"),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT + " (Shasta/Nile also use version 0x41)",
  },
  solana: {
    valid: [
      R("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA", "solana-labs/solana-program-library token/program/src/lib.rs (declare_id!)"),
      R("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", "Circle developer docs (USDC mint on Solana)"),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  cardano: {
    valid: [
      R("addr1qx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzer3n0d3vllmyqwsx5wktcd8cc3sq835lu7drv2xwl2wywfgse35a3x", CIP19 + " (type-0 base address)"),
      R("addr1vx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzers66hrl8", CIP19 + " (type-6 enterprise address)"),
      S("addr1qx52knza2h5x090n4a5r7yraz3pwcamk9ppvuh7e26nfks7pnmhxqavtqy02zezklh27jt9r6z62sav3mugappdc7xnskxy2pn", CJS + " (shelley.grouped.mainnet)"),
      S("addr1vy36kffjf87vzkuyqc5g0ys3fe3pez5zvqg9r5z9q9kfrkg2cs093", CJS + " (shelley.single.mainnet)"),
      S("Ae2tdPwUPEZFRbyhz3cpfC2CumGzNkFBN2L42rcUc2yjQpEkxDbkPodpMAi", CJS + " (byron.mainnet.icarus); input-output-hk/cardano-wallet golden tests"),
      S("DdzFFzCqrhsw3prhfMFDNFowbzUku3QmrMwarfjUbWXRisodn97R436SHc1rimp4MhPNmbdYb1aTdqtGSJixMVMi5MkArDQJ6Sc1n3Ez", CJS + " (byron.mainnet.daedalus)"),
    ],
    testnet: [
      R("addr_test1qz2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzer3n0d3vllmyqwsx5wktcd8cc3sq835lu7drv2xwl2wywfgs68faae", CIP19 + " (testnet base address)"),
      S("addr_test1qqydn46r6mhge0kfpqmt36m6q43knzsd9ga32n96m89px3nuzcjqw982pcftgx53fu5527z2cj2tkx2h8ux2vxsg475qypp3m9", CJS + " (shelley.grouped.testnet)"),
      S("37btjrVyb4KEB2STADSsj3MYSAdj52X5FrFWpw2r7Wmj2GDzXjFRsHWuZqrw7zSkwopv8Ci3VWeg6bisU9dgJxW5hb2MZYeduNKbQJrqz3zVBsu9nT", CJS + " (byron.testnet.daedalus)"),
      S("2cWKMJemoBakkUSWX3DZdx8eXGeqjN6mkgVUCND1RNB736qWS5v1CGgQGNNTFUZSXaVLj", CJS + " (byron.testnet.icarus)"),
    ],
  },
  "ss58:0": {
    valid: [
      R("15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5", "polkadot-js/common util-crypto tests (//Alice, ss58Format 0)"),
      R("14E5nqKAp3oAJcmzgZhUD2RcptBeUBScxKHgJKU4HPNcKVf3", "polkadot-js/common util-crypto tests (//Bob, ss58Format 0)"),
    ],
    testnet: [
      R("5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY", "//Alice, prefix 42 (Westend/generic substrate form)"),
      R("HNZata7iMYWmk5RvZRTiAsSDhV8366zq2YGb3tLH5Upf74F", "//Alice, prefix 2 (Kusama) - wrong network for DOT"),
    ],
  },
  "ss58:2": {
    valid: [
      R("HNZata7iMYWmk5RvZRTiAsSDhV8366zq2YGb3tLH5Upf74F", "polkadot-js/common util-crypto tests (//Alice, ss58Format 2)"),
      R("FoQJpPyadYccjavVdTWxpxU7rUEaYhfLCPwXgkfD6Zat9QP", "polkadot-js/common util-crypto tests (//Bob, ss58Format 2)"),
      S("CxDDSH8gS7jecsxaRL9Txf8H5kqesLXAEAEgp76Yz632J9M", "polkadot-js/docs keyring ss58 formats example (Kusama)"),
    ],
    testnet: [R("15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5", "//Alice, prefix 0 (Polkadot) - wrong network for KSM")],
  },
  "ss58:42": {
    valid: [
      S("5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY", "leonardocustodio/polkadart packages/ss58/README.md; substrate docs (//Alice)"),
      R("5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty", "substrate docs (//Bob)"),
      S("5CSbZ7wG456oty4WoiX6a1J88VUbrCXLhrKVJ9q95BsYH4TZ", "polkadot-js/docs keyring ss58 formats example (generic)"),
    ],
    testnet: [R("15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5", "//Alice, prefix 0 (Polkadot) - wrong network")],
  },
  monero: {
    valid: [
      R("44AFFq5kSiGBoZ4NMDwYtN18obc8AemS33DBLWs3H7otXft3XjrpDtQGv7SqSsaBYBb98uNbr2VBBEt7f2wfn3RVGQBEP3A", "getmonero.org (Monero General Fund donation address)"),
      R("888tNkZrPN6JsEgekjMnABU4TBzc2Dt29EPAvkRxbANsAnjyPbb3iQ1YBRk1UXcdRsiKc9dhwMVgN5S9cQUiyoogDavup3H", "monero-project/monero README.md (donation address)"),
    ],
    testnet: [D("9xrHXdaH5JnJsEgekjMnABU4TBzc2Dt29EPAvkRxbANsAnjyPbb3iQ1YBRk1UXcdRsiKc9dhwMVgN5S9cQUiyoogDYL6EkP", "888tNkZr... keys with testnet network byte 53")],
  },
  nano: {
    valid: [
      R("nano_3t6k35gi95xu6tergt6p69ck76ogmitsa8mnijtpxm9fkcm736xtoncuohr3", "docs.nano.org (genesis account)"),
      R("xrb_3t6k35gi95xu6tergt6p69ck76ogmitsa8mnijtpxm9fkcm736xtoncuohr3", "docs.nano.org (genesis account, legacy xrb_ prefix)"),
      R("nano_1anrzcuwe64rwxzcco8dkhpyxpi8kd7zsjc1oeimpc3ppca4mrjtwnqposrs", "docs.nano.org integration guide examples"),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  algorand: {
    valid: [
      R("7ZUECA7HFLZTXENRV24SHLU4AVPUTMTTDUFUBNBD64C73F3UHRTHAIOF6Q", "algorand/js-algorand-sdk tests"),
      R("MO2H6ZU47Q36GJ6GVHUKGEBEQINN7ZWVACMWZQGIYUOE3RBSRVYHV4ACJI", "algorand developer docs examples"),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  tezos: {
    valid: [
      R("tz1VSUr8wwNhLAzempoch5d6hLRiTh8Cjcjb", "ecadlabs/taquito documentation examples"),
      R("tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx", "Tezos developer documentation examples"),
      R("KT1PWx2mnDueood7fEmfbBDKx1D9BAnnXitn", "Tezos developer documentation (FA1.2 example contract)"),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "eosio-account": {
    valid: [R("eosio.token", "EOSIO system contracts (token contract account)"), R("tethertether", "Tether (USDT on EOS contract account)")],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "hedera-account": {
    valid: [R("0.0.2", "Hedera docs (treasury account)"), R("0.0.98", "Hedera docs (network fee account)")],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "near-account": {
    valid: [
      R("wrap.near", "NEAR docs (wNEAR contract)"),
      R("usdt.tether-token.near", "Tether (USDT on NEAR contract)"),
      R("17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1", "Circle developer docs (USDC on NEAR, implicit account)"),
    ],
    testnet: [R("wrap.testnet", "NEAR docs (wNEAR on testnet)")],
  },
  hex32: {
    valid: [
      R("0xdba34672e30cb065b1f93e3ab55318768fd6fef66c15942c9f7cb846e2f900e7", "Circle developer docs (USDC package on Sui)"),
      R("0xbae207659db88bea0cbead6da0ed00aac12edcdda169e591cd41c94180b46f3b", "Circle developer docs (USDC on Aptos)"),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  ton: {
    valid: [
      S("EQAKtVj024T9MfYaJzU1xnDAkf_GGbHNu-V2mgvyjTuP6rvC", "ton-community/ton-kotlin block-tlb/test/AddrStdTest.kt"),
      R("EQAs9VlT6S776tq3unJcP5Ogsj-ELLunLXuOb1EKcOQi4wJB", "mainnet bounceable form of the account in ton-community/ton src/address/Address.spec.ts"),
    ],
    testnet: [
      S("0QAs9VlT6S776tq3unJcP5Ogsj-ELLunLXuOb1EKcOQi4-QO", "ton-community/ton src/address/Address.spec.ts (isTestOnly)"),
      S("kQAs9VlT6S776tq3unJcP5Ogsj-ELLunLXuOb1EKcOQi47nL", "ton-community/ton src/address/Address.spec.ts (isTestOnly)"),
    ],
  },
  "icp-account": {
    valid: [
      R("d3e13d4777e22367532053190b6c6ccf57444a61337e996242b1abfb52cf92c8", "internetcomputer.org docs (ledger account identifier example)"),
      R("a2a794c66495083317e4be5197eb655b1e63015469d769e2338af3d3e3f3aa86", "internetcomputer.org docs (ledger account identifier example)"),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  filecoin: {
    valid: [
      R("f1abjxfbp274xpdqcpuaykwkfb43omjotacm2p3za", "filecoin-project/specs (address examples); filecoin-project/go-address tests"),
      R("f3vvmn62lofvhjd2ugzca6sof2j2ubwok6cj4xxbfzz4yuxfkgobpihhd2thlanmsh3w2ptld2gqkn2jvlss4a", "filecoin-project/specs (BLS address example)"),
    ],
    testnet: [D("t1abjxfbp274xpdqcpuaykwkfb43omjotacm2p3za", "f1abjx... with the testnet network prefix t")],
  },
  neo3: {
    valid: [
      R("NPvKVTGZapmFWABLsyvfreuqn73jCjJtN1", "CityOfZion/neon-js tests"),
      R("NdtB8RXRmJ7Nhw1FPTm7E6HoDZGnDw37nf", "neo-project docs examples"),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  ontology: {
    valid: [R("AXK2KtCfcJnSMyRzSwTuwTKgNrtx5aXfFX", "ontio/ontology-ts-sdk tests"), R("ANH5bHrrt111XwNEnuPZj6u95Dd6u7G4D6", "ontio documentation examples")],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  waves: {
    valid: [R("3PAWwWa6GbwcJaFzwqXQN5KQm7H96Y7SHTQ", "docs.waves.tech examples"), R("3P2HNUd5VUPLMQkJmctTPEeeHumiPN2GkTb", "docs.waves.tech examples")],
    testnet: [D("3MxW8ZFCQUQDg7xagmGQQcwbQDmNGLfZVAn", "3PAWwWa6... hash with testnet chain id 'T'")],
  },
  stacks: {
    valid: [
      S("SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7", "stacks-network/c32check tests (version 22, a46ff888...)"),
      R("SM2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKQVX8X0G", "stacks-network/c32check tests (version 20, a46ff888...)"),
      R("SP000000000000000000002Q6VF78", "Stacks docs (boot contracts address)"),
    ],
    testnet: [D("ST2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKQYAC0RQ", "a46ff888... with testnet version 26")],
  },
  casper: { valid: [], testnet: [], noTestnet: SAME_FORMAT },
  flow: {
    valid: [R("0x1654653399040a61", "Flow docs core contracts (FlowToken, mainnet)"), R("0xf233dcee88fe0abe", "Flow docs core contracts (FungibleToken, mainnet)")],
    testnet: [R("0x7e60df042a9c0868", "Flow docs core contracts (FlowToken, testnet)"), R("0x9a0766d93b6608b7", "Flow docs core contracts (FungibleToken, testnet)")],
  },
  mina: {
    valid: [
      R("B62qrPN5Y5yq8kGE3FbVKbGTdTAJNdtNtB5sNVpxyRwWGcDEhpMzc8g", "Mina docs examples"),
      R("B62qkYa1o6Mj6uTTjDQCob7FYZspuhkm4RRQhgJg9j4koEBWiSrTQrS", "Mina docs examples"),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  arweave: { valid: [], testnet: [], noTestnet: SAME_FORMAT },
  "bech32m:ckb": {
    valid: [
      R("ckb1qzda0cr08m85hc8jlnfp3zer7xulejywt49kt2rr0vthywaa50xwsqdnnw7qkdnnclfkg59uzn8umtfd2kwxceqxwquc4", "nervosnetwork/rfcs rfcs/0021-ckb-address-format (full format example)"),
      R("ckb1qyq5lv479ewscx3ms620sv34pgeuz6zagaaqklhtgg", "nervosnetwork/rfcs rfcs/0021-ckb-address-format (deprecated short format example)"),
    ],
    testnet: [D("ckt1qzda0cr08m85hc8jlnfp3zer7xulejywt49kt2rr0vthywaa50xwsqdnnw7qkdnnclfkg59uzn8umtfd2kwxceqgutnjd", "full-format example with the ckt HRP")],
  },
  conflux: {
    valid: [
      R("cfx:aak2rra2njvd77ezwjvx04kkds9fzagfe6ku8scz91", "Conflux-Chain/CIPs CIP-37 (examples)"),
      R("CFX:TYPE.USER:AAK2RRA2NJVD77EZWJVX04KKDS9FZAGFE6KU8SCZ91", "Conflux-Chain/CIPs CIP-37 (verbose upper-case form)"),
      R("cfx:acc7uawf5ubtnmezvhu9dhc6sghea0403y2dgpyfjp", "Conflux-Chain/CIPs CIP-37 (contract example)"),
    ],
    testnet: [D("cfxtest:aak2rra2njvd77ezwjvx04kkds9fzagfe6d5r8e957", "CIP-37 example with the cfxtest network prefix")],
  },
  kadena: { valid: [], testnet: [], noTestnet: SAME_FORMAT },
  siacoin: {
    valid: [R("053b2def3cbdd078c19d62ce2b4f0b1a3c5e0ffbeeff01280efb1f8969b2f5bb4fdc680f0807", "SiaFoundation sources (initial Foundation subsidy address)")],
    testnet: [R("000000000000000000000000000000000000000000000000000000000000000089eb0d6a8a69", "Sia docs (void/burn address): rejected, not a payout address")],
  },
  ardor: {
    valid: [
      R("ARDOR-MRCC-2YLS-8M54-3CMAJ", "Jelurida NRS/Ardor genesis account (id 1739068987193023818; the decoder reproduces the id)"),
      R("ARDOR-3TKA-UH62-478B-DQU6K", "Jelurida Ardor documentation examples"),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "graphene-account": {
    valid: [R("steemit", "Steem (founding account)"), R("steem.dao", "Steem (DAO account)")],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  ergo: {
    valid: [R("9fRAWhdxEsTcdb8PhGNrZfwqa65zfkuYHAMmkQLcic1gdLSV5vA", "ergoplatform docs examples (P2PK)"), R("9iHWcYYSPkgYbnC6aHfZcLZrKrrkpFzM2ETUZ2ikFqFwVAB2CU7", "ergoplatform docs examples (P2PK)")],
    testnet: [D("3WwWK6U2khXfCuoREuafbMBjpXJXMN6Y9M8Sj1wrUNfQBvaF4gBo", "9fRAWhdx... key with the testnet network prefix 0x10")],
  },
  starknet: {
    valid: [
      R("0x04718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d", "Starknet docs (STRK token contract)"),
      R("0x049d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7", "Starknet docs (ETH token contract)"),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  decred: {
    valid: [
      R("DsUZxxoHJSty8DCfwfartwTYbuhmVct7tJu", "decred/dcrd dcrutil address_test.go (mainnet p2pkh)"),
      R("DcuQKx8BES9wU7C6Q5VmLBjw436r27hayjS", "decred/dcrd dcrutil address_test.go (mainnet p2sh)"),
    ],
    testnet: [D("TsUdBwvnhEx5EZt2m4D23WUpC1fh4DqDtHT", "DsUZxxoH... hash with testnet id 0x0f21")],
  },
  "bech32:cosmos": {
    valid: [
      R("cosmos1fl48vsnmsdzcv85q5d2q4z5ajdha8yu34mf0eh", "cosmos/cosmjs tests"),
      R("cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn", "cosmos/cosmos-sdk (x/gov module account, the default authority)"),
      R("cosmos1jv65s3grqf6v6jl3dp4t6c9t9rk99cd88lyufl", "cosmos/cosmos-sdk (x/distribution module account)"),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "bech32:osmo": { valid: [R("osmo1fl48vsnmsdzcv85q5d2q4z5ajdha8yu3aq6l09", "cosmos/cosmjs tests")], testnet: [], noTestnet: SAME_FORMAT },
  "bech32:inj": { valid: [R("inj1cml96vmptgw99syqrrz8az79xer2pcgp0a885r", "InjectiveLabs docs examples")], testnet: [], noTestnet: SAME_FORMAT },
  "bech32:thor": {
    valid: [R("thor1dheycdevq39qlkxs2a6wuuzyn4aqxhve4qxtxt", "THORChain docs (module/reserve examples)")],
    testnet: [D("tthor1dheycdevq39qlkxs2a6wuuzyn4aqxhve3hhmlw", "thor1dhey... with the tthor testnet HRP")],
  },
  "bech32:terra": { valid: [R("terra1dcegyrekltswvyy0xy69ydgxn9x8x32zdtapd8", "Terra docs examples")], testnet: [], noTestnet: SAME_FORMAT },
  "bech32:erd": {
    valid: [
      R("erd1qyu5wthldzr8wx5c9ucg8kjagg0jfs53s8nr3zpz3hypefsdd8ssycr6th", "multiversx/mx-sdk-js-core tests (alice test wallet)"),
      R("erd1spyavw0956vq68xj8y4tenjpq2wd5a9p2c6j8gsz7ztyrnpxrruqzu66jx", "multiversx/mx-sdk-js-core tests (bob test wallet)"),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "bech32:zil": { valid: [R("zil1fwh4ltdguhde9s7nysnp33d5wye6uqpugufkz7", "Zilliqa docs examples")], testnet: [], noTestnet: SAME_FORMAT },
  "bech32:one": {
    valid: [R("one1pdv9lrdwl0rg5vglh4xtyrv3wjk3wsqket7zxy", "Harmony docs examples"), R("one103q7qe5t2505lypvltkqtddaef5tzfxwsse4z7", "Harmony docs examples")],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "bech32:oasis": { valid: [R("oasis1qz78phkdan64g040cvqvqpwkplfqf6tj6uwcsh30", "Oasis docs examples")], testnet: [], noTestnet: SAME_FORMAT },
  "bech32:bnb": {
    valid: [R("bnb1grpf0955h0ykzq3ar5nmum7y6gdfl6lxfn46h2", "BNB Beacon Chain docs examples")],
    testnet: [D("tbnb1grpf0955h0ykzq3ar5nmum7y6gdfl6lx8xu7hm", "bnb1grpf... with the tbnb testnet HRP")],
  },
  "bech32:celestia": { valid: [F("celestia1jc92qdnty48pafummfr8ava2tjtuhfdw774w60", "celestia-app Go tests (testAddress)")], testnet: [], noTestnet: SAME_FORMAT },
  "bech32:kava": {
    valid: [F("kava1r4v2zdhdalfj2ydazallqvrus9fkphmglhn6u6", "Kava-Labs/kava bep3 deputy addresses"), F("kava1cd8z53n7gh2hvz0lmmkzxkysfp5pghufat3h4a", "Kava-Labs/kava module spec table (Owner example)")],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "bech32:dydx": {
    valid: [F("dydx199tqg4wdlnu4qjlxchpd7seg454937hjrknju4", "dydxprotocol/v4-chain test accounts script (alice)"), F("dydx16h7p7f4dysrgtzptxx2gtpt5d8t834g9dj830z", "dydxprotocol/v4-chain Go test constants (TestAddress1)")],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "bech32:sei": {
    valid: [F("sei1gv86dp8wmnmmatdckgr5xkevnpmy46624uajng", "public source code (pacific-1 address table)"), F("sei1n4aqj7lucydfdfmml7kvw2lecld99ere8nv7gv", "public source code (CosmWasm client example)")],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "bech32:secret": { valid: [F("secret1tqmms5awftpuhalcv5h5mg76fa0tkdz4jv9ex4", "public source code (Secret Network ICS-20 contract address)")], testnet: [], noTestnet: SAME_FORMAT },
  "bech32:akash": { valid: [F("akash1365yvmc4s7awdyj3n2sav7xfx76adc6dnmlx63", "Akash provider configuration (auditor signedBy)")], testnet: [], noTestnet: SAME_FORMAT },
  "bech32:band": { valid: [], testnet: [], noTestnet: SAME_FORMAT },
  "bech32:cro": { valid: [], testnet: [], noTestnet: "tcro testnet HRP exists; no sourced mainnet vector to derive it from" },
  "bech32:noble": { valid: [], testnet: [], noTestnet: SAME_FORMAT },
  "bech32m:xch": { valid: [], testnet: [], noTestnet: "txch testnet HRP exists; no sourced mainnet vector to derive it from" },
  icon: { valid: [], testnet: [], noTestnet: SAME_FORMAT },
};

/** Wrong-network pairs used by the tests: an address that is valid for `valid` but must fail for `family`. */
export const WRONG_NETWORK: Array<{ family: string; address: string; note: string }> = [
  { family: "ss58:0", address: "HNZata7iMYWmk5RvZRTiAsSDhV8366zq2YGb3tLH5Upf74F", note: "Kusama address as DOT" },
  { family: "ss58:2", address: "15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5", note: "Polkadot address as KSM" },
  { family: "utxo:ltc", address: "3LRW7jeCvQCRdPF8S3yUCfRAx4eqXFmdcr", note: "BTC P2SH as LTC" },
  { family: "cashaddr:ecash", address: "bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a", note: "BCH CashAddr as XEC" },
  { family: "cashaddr:bch", address: "1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu", note: "legacy base58 as BCH (CashAddr required)" },
  { family: "tron", address: "1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH", note: "BTC as TRON" },
  { family: "stellar", address: "SAB5556L5AN5KSR5WF7UOEFDCIODEWEO7H2UR4S5R62DFTQOGLKOVZDY", note: "Stellar secret seed is not an address" },
];
