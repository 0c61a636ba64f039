// Address test vectors per family: real mainnet addresses with the place they were taken from,
// testnet/wrong-network forms that must be rejected, and the provenance of each.
//
// Provenance kinds:
//   "sourced"  - copied from the named file, read during this work (owner/repo + path, and the
//                commit id of the version read, "@abcdef12", where the search tool reported one).
//   "recalled" - quoted from memory without a file read; none are left (issue 14 replaced the
//                last 27 with sourced ones, and a test keeps it at zero).
//   "found"    - a real address found in public source code by exact-string or semantic search;
//                the context is noted, but either the exact file was not recorded by the search
//                tool or the file is a third-party project rather than the chain's own
//                documentation / reference library.
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
const D = (address: string, source: string): Vector => ({ address, source, kind: "derived" });
const F = (address: string, source: string): Vector => ({ address, source, kind: "found" });

const BJS = "bitcoinjs/bitcoinjs-lib test/fixtures/address.json";
const LTC = "litecoin-project/litecoin src/test/data/key_io_valid.json";
const DOGE = "dogecoin/dogecoin src/test/data/base58_keys_valid.json";
const DGB = "digibyte/digibyte src/test/data/key_io_valid.json";
const QTUM = "qtumproject/qtum src/test/data/key_io_valid.json";
const ZEN = "HorizenOfficial/zen src/test/data/base58_keys_valid.json";
const XRPC = "XRPLF/xrpl.js packages/ripple-address-codec (README.md and test/)";
const SEP23 = "stellar/stellar-protocol ecosystem/sep-0023.md @0b2754e0 (valid test cases)";
const CASHADDR = "bitcoincashorg/bitcoincash.org spec/cashaddr.md @07357b9a (test vectors)";
const XECADDR = "Bitcoin-ABC/bitcoin-abc doc/standards/cashaddr.md @09b327bb (test vectors)";
const KASPAD = "kaspanet/kaspad util/address_test.go @072c6d2b";
const CIP19 = "cardano-foundation/CIPs CIP-0019/README.md @1035613e (Test Vectors)";
const EIP55 = "ethereum/EIPs EIPS/eip-55.md";
const CJS = "input-output-hk/cardano-js-sdk packages/core test (parseCmlAddress address fixtures)";
const B58C = "bitcoinjs/bs58check test/fixtures.json @e698fa2b";
// Trust Wallet Core (trustwallet/wallet-core) is a multi-chain reference library; its per-chain
// address tests are the source of many vectors below. TWCoinTypeTests files pin a real mainnet
// account in the chain's mainnet explorer URL.
const TWC = (path: string, commit: string) => `trustwallet/wallet-core tests/chains/${path} @${commit}`;
const XDPOS = "XinFinOrg/XDPoSChain @4ef1d4fd";
const MONERO_AB = "monero-project/monero tests/functional_tests/address_book.py @01ccb8b1";
const WC5 = (path: string) => TWC(path, "5295dc4f");
const SAME_FORMAT = "testnets use the same address encoding as mainnet (no distinct testnet form to reject)";

export const VECTORS: Record<string, FamilyVectors> = {
  "utxo:btc": {
    valid: [
      S("1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH", BJS),
      S("3LRW7jeCvQCRdPF8S3yUCfRAx4eqXFmdcr", BJS),
      S("BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4", BJS),
      S(
        "bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3",
        "bitcoin/bips bip-0173.mediawiki @01111edb (Examples: mainnet P2WSH)",
      ),
      S(
        "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0",
        "bitcoin/bips bip-0350.mediawiki @0310d9ee (valid segwit address test vectors)",
      ),
    ],
    testnet: [S("mrCDrCybB6J1vRfbwM5hemdJz73FwDBC8r", BJS), S("tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7", BJS)],
  },
  "utxo:ltc": {
    valid: [
      S("LT2KVaAy1ppRuxRgrS5RNU3vBsy7RibPeA", LTC),
      S("MHrYRxAiMNBTku3eoDHwhA1LQGDjUStZW2", LTC),
      S("MCZjFcwYJwwYqXAbd3bbnxaCVGs81cp43Z", `${BJS} (litecoin network)`),
      S("LUxXFcwXFPpRZdMv4aYu6bDwPdC2skQ5YW", `${BJS} (litecoin network)`),
    ],
    testnet: [
      S("QXaUgLHkZcbJb2j5XgMYzY8cF9YM48Y81Z", `${LTC} (chain: test)`),
      D("moKKXQx7kC1dSGD9Ps4VvNCUqfCYB2SqN8", "LT2KVaAy... re-encoded with testnet version 0x6f"),
    ],
  },
  "utxo:doge": {
    valid: [
      S("DD4KSSuBJqcjuTcvUg1CgUKeurPUFeEZkE", DOGE),
      S("A7HRQk3GFCW2QasvdZxXuYj8kkQK5QrYLs", DOGE),
      S("DBjW6kna7rUPE4Mj9j4B3oK3xVA1SDHrdt", DOGE),
    ],
    testnet: [
      S("nhRsrUaxZou6sewjqaS37cJrMRJRgwVXdk", `${DOGE} (isTestnet)`),
      S("2MsvyG12kxxipe276Au4zKqvd2xdrBuHWb3", `${DOGE} (isTestnet)`),
    ],
  },
  "utxo:dash": {
    valid: [
      S("XpG61qAVhdyN7AqVZQsHfJL7AEk4dPVinc", "dashpay/dash src/test/data/proposals_valid.json @0edae123 (payment_address)"),
      S(
        "7gnwGHt17heGpG9Crfeh4KGpYNFugPhJdh",
        'dashpay/sentinel test/unit/models/test_proposals.py @0c6ed730 ("actually the Dash foundation multisig address", mainnet P2SH)',
      ),
    ],
    testnet: [
      S(
        "yYe8KwyaUu5YswSYmB3q3ryx8XTUu9y7Ui",
        "dashpay/dash src/test/data/proposals_invalid.json @0edae123; dashpay/sentinel test_proposals.py (testnet payment address)",
      ),
      D(
        "yZs3yXZDFLQuUAVsufNVDtNNbKe49EwkYa",
        "XpESxaUm... (a widely used Dash mainnet address, not file-sourced) re-encoded with testnet version 0x8c",
      ),
    ],
  },
  "utxo:dgb": {
    valid: [
      S("DSC6tGC2NvN6AHio2p8pU4seTbPKDi7KZb", DGB),
      S("SefNWSMmXAxc4N8sxHyg8hHXTTU9GojgzX", DGB),
      S("dgb1qhyz5jznu8rxjz6emktwwkz5m0m4gr9q9rvhegc", DGB),
      S("dgb1pva0l3ng2q0gt2t3rqqpqxk5y57l4u0xyryxdslrt76k5u54rvpssjpmuhq", DGB),
    ],
    testnet: [
      S("sxnDwNPKaPKZd5ZgJfVfom8cX4ZJkYr1zL", `${DGB} (chain: test)`),
      S("dgbt1qznyt7p9zln65ydpuzfq8ksuz4hkvcwdl9qtcty", `${DGB} (chain: test)`),
    ],
  },
  "utxo:rvn": {
    valid: [
      S("RXBurnXXXXXXXXXXXXXXXXXXXXXXWUo9FV", "RavenProject/Ravencoin src/chainparams.cpp @02fdf2b6 (main strGlobalBurnAddress)"),
      S("RXissueAssetXXXXXXXXXXXXXXXXXhhZGt", "RavenProject/Ravencoin src/chainparams.cpp @02fdf2b6 (main strIssueAssetBurnAddress)"),
      S("RXReissueAssetXXXXXXXXXXXXXXVEFAWu", "RavenProject/Ravencoin src/chainparams.cpp @02fdf2b6 (main strReissueAssetBurnAddress)"),
    ],
    testnet: [
      S("n1BurnXXXXXXXXXXXXXXXXXXXXXXU1qejP", "RavenProject/Ravencoin src/chainparams.cpp @02fdf2b6 (testnet strGlobalBurnAddress)"),
      S("n1issueAssetXXXXXXXXXXXXXXXXWdnemQ", "RavenProject/Ravencoin src/chainparams.cpp @02fdf2b6 (testnet strIssueAssetBurnAddress)"),
    ],
  },
  "utxo:qtum": {
    valid: [
      S("QX3gQrQsGHwsESPgme7iNHUJ4TTLjFp9pg", QTUM),
      S("MSDh4T9bbVJGP4tGRSEsEKED5eeSTgLXee", QTUM),
      S("qc1q5cuatynjmk4szh40mmunszfzh7zrc5xmfay5c7", QTUM),
      S("qc1p5rgvqejqh9dh37t9g94dd9cm8vtqns7dndgj423egwggsggcdzmsr55sv7", QTUM),
    ],
    testnet: [
      S("qKMLfF2HAvN23XSTQmEb41G3vc8FpXxD14", `${QTUM} (chain: test)`),
      S("tq1q74fxwnvhsue0l8wremgq66xzvn48jlc5xgw3xd", `${QTUM} (chain: test)`),
    ],
  },
  "utxo:bsv": {
    // BSV keeps Bitcoin's P2PKH encoding (version 0x00); the vectors are Base58Check fixtures of
    // that exact encoding.
    valid: [
      S("1AGNa15ZQXAZUgFiqJ2i7Z2DPU2J6hW62i", `${B58C} (payload 00 65a16059...)`),
      S("1Ax4gZtb7gAit2TivwejZHYtNNLT18PUXJ", `${B58C} (payload 00 6d23156c...)`),
    ],
    testnet: [
      S("mo9ncXisMeAoXwqcV5EWuyncbmCcQN4rVs", `${B58C} (payload 6f ..., testnet P2PKH)`),
      D("mpnKs4AYDYbpFnjLYs15wUEYFTd13EyCvs", "1AGNa15Z... re-encoded with testnet version 0x6f"),
    ],
  },
  "utxo:zec": {
    valid: [
      S("t1h8SqgtM3QM5e2M8EzhhT1yL2PXXtA6oqe", "zcash/zcash src/test/key_tests.cpp (addr1)"),
      S("t1Xxa5ZVPKvs9bGMn7aWTiHjyHvR31XkUst", "zcash/zcash src/test/key_tests.cpp (addr2)"),
      S("tex1s2rt77ggv6q989lr49rkgzmh5slsksa9khdgte", "zcash/zips zips/zip-0320.rst @47ab5b8c (Reference implementation)"),
      S(
        "zs1z7rejlpsa98s2rrrfkwmaxu53e4ue0ulcrw0h4x5g8jl04tak0d3mm47vdtahatqrlkngh9slya",
        "zcash/zcash src/wallet/test/rpc_wallet_tests.cpp @002eaeed (z_validateaddress, mainnet Sapling)",
      ),
    ],
    testnet: [
      S(
        "ztestsapling1knww2nyjc62njkard0jmx7hlsj6twxmxwprn7anvrv4dc2zxanl3nemc0qx2hvplxmd2uau8gyw",
        'zcash/zcash src/wallet/test/rpc_wallet_tests.cpp @002eaeed ("belongs to another network")',
      ),
      S("tmC6YZnCUhm19dEXxh3Jb7srdBJxDawaCab", "zcash/zcash src/wallet/test/rpc_wallet_tests.cpp @002eaeed (testnet t-address)"),
      D("tmYyCAXNkS4ranGYZuj1SJge5dNcMN6xDC7", "t1h8Sqgt... re-encoded with testnet version 1d25"),
    ],
  },
  "utxo:firo": {
    valid: [
      S("aAbqxogrjdy2YHVcnQxFHMzqpt2fhjCTVT", `${TWC("Firo/TWZCoinAddressTests.cpp", "265ba7a9")} (P2PKH)`),
      S("aLnztJEbyACnxF9H7SFC8YjUxedwyQsgVm", `${TWC("Firo/TWZCoinAddressTests.cpp", "265ba7a9")} (m/44'/136'/0'/0/3)`),
      S("aJj2jdMzHyKFJLEFTxhpn379avEqRKFUyw", `${TWC("Firo/TWZCoinAddressTests.cpp", "265ba7a9")} (m/44'/136'/0'/0/5)`),
      S("4CFa4fnAQvFz4VpikGNzQ9XfCDXMmdk6sh", `${TWC("Firo/TWZCoinAddressTests.cpp", "265ba7a9")} (P2SH lock script)`),
    ],
    testnet: [D("TVwAqhNMg2qc2etN7t9ETzqG5TCRkNv3zN", "aLgRaYSF... (recalled Firo address) re-encoded with testnet version 0x41")],
  },
  "utxo:zen": {
    valid: [
      S("znc3p7CFNTsz1s6CceskrTxKevQLPoDK4cK", ZEN),
      S("zswRHzwXtwKVmP8ffKKgWz6A7TB97Fuzx7w", ZEN),
      S("znfXrEPyCmKragUsMMRiLrVeSo34B72e25v", ZEN),
    ],
    testnet: [
      S("ztkxeiFhYTS5sueyWSMDa8UiNr5so6aDdYi", `${ZEN} (isTestnet)`),
      S("zrQ8QquQTdfHFwcDwsYWxBCPz7uHhJgJ1NB", `${ZEN} (isTestnet)`),
    ],
  },
  "utxo:xvg": {
    valid: [
      S("DRyNFvJaybnF22UfMS6NR1Qav3mqxPj86E", TWC("Verge/AddressTests.cpp", "221584f3")),
      S("D8rBdwBfz5wvLhmHvRkXnNzeeihQgxkLmL", TWC("Verge/AddressTests.cpp", "221584f3")),
    ],
    testnet: [],
    noTestnet: "no sourced Verge testnet vector (testnet version bytes not verified from a file)",
  },
  "cashaddr:bch": {
    valid: [
      S("bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a", `${CASHADDR}; Bitcoin-ABC/bitcoin-abc src/qt/test/uritests.cpp`),
      S("bitcoincash:ppm2qsznhks23z7629mms6s4cwef74vcwvn0h829pq", CASHADDR),
      S("bitcoincash:qr95sy3j9xwd2ap32xkykttr4cvcu7as4y0qverfuy", CASHADDR),
      S("qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a", `${CASHADDR} (prefix omitted)`),
    ],
    testnet: [
      S("bchtest:pr6m7j9njldwwzlg9v7v53unlr4jkmx6eyvwc0uz5t", `${CASHADDR} (larger test vectors, bchtest)`),
      D("bchtest:qpm2qsznhks23z7629mms6s4cwef74vcwvqcw003ap", "spec example payload with the bchtest prefix"),
    ],
  },
  "cashaddr:ecash": {
    valid: [
      S("ecash:qpm2qsznhks23z7629mms6s4cwef74vcwva87rkuu2", XECADDR),
      S("ecash:ppm2qsznhks23z7629mms6s4cwef74vcwv2zrv3l8h", `${XECADDR} (P2SH)`),
      S("ecash:qr95sy3j9xwd2ap32xkykttr4cvcu7as4ykdcjcn6n", XECADDR),
    ],
    testnet: [
      S("ectest:pr6m7j9njldwwzlg9v7v53unlr4jkmx6eyh6krzzk3", `${XECADDR} (larger test vectors, ectest)`),
      D("ectest:qpm2qsznhks23z7629mms6s4cwef74vcwvmvqr33lm", "ecash:qpm2... payload with the ectest prefix"),
    ],
  },
  "cashaddr:kaspa": {
    valid: [
      S("kaspa:qr35ennsep3hxfe7lnz5ee7j5jgmkjswsn35ennsep3hxfe7ln35cdv0dy335", `${KASPAD} (mainnet p2pkh)`),
      S("kaspa:qq80qvqs0lfxuzmt7sz3909ze6camq9d4t35ennsep3hxfe7ln35cvfqgz3z8", `${KASPAD} (mainnet p2pkh 2)`),
      S("kaspa:prq20q4qd9ulr044cauyy9wtpeupqpjv67pn2vyc6acly7xqkrjdzmh8rj9f4", `${KASPAD} (mainnet p2sh)`),
    ],
    testnet: [
      S("kaspatest:qputx94qseratdmjs0j395mq8u03er0x3l35ennsep3hxfe7ln35ckquw528z", `${KASPAD} (testnet p2pkh)`),
      D(
        "kaspatest:qqkqkzjvr7zwxxmjxjkmxxdwju9kjs6e9u82uh59z07vgaks6gg62dpc53k04",
        "kaspa:qqkqk... (a mainnet address found in public code) payload with the kaspatest prefix",
      ),
    ],
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
    valid: [
      S(
        "xdc5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
        `${XDPOS} common/types_test.go (TestAddressHexChecksum, EIP-55 case with xdc prefix)`,
      ),
      S("xdcfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359", `${XDPOS} common/types_test.go (TestAddressHexChecksum)`),
      S("xdc92a289fe95a85c53b8d0d113cbaef0c1ec98ac65", `${XDPOS} params/config.go (mainnet XDPoS FoudationWalletAddr)`),
    ],
    testnet: [],
    noTestnet: `${SAME_FORMAT} (XDC Apothem uses the same xdc/0x encoding)`,
  },
  xrp: {
    valid: [
      S("rGWrZyQqhTp9Xu7G5Pkayo7bXjH4k4QYpf", XRPC),
      S("XVLhHMPHU98es4dbozjVtdWzVrDjtV18pX8yuPT7y4xaEHi", `${XRPC} (tag 4294967295)`),
      S("XVLhHMPHU98es4dbozjVtdWzVrDjtV5fdx1mHp98tDMoQXb", `${XRPC} (no tag)`),
      F("rPEPPER7kfTD9w2To4CQk6UCfuHM9c6GDY", "XRP Tip Bot account; destination in xrpl4j / xrpl-rust test fixtures (paths not recorded)"),
    ],
    testnet: [S("T7oKJ3q7s94kDH6tpkBowhetT1JKfcfdSCmAXbS75iATyLD", `${XRPC} (test X-address)`)],
  },
  stellar: {
    valid: [
      S("GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZ", `${SEP23} (non-multiplexed account)`),
      S("MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAACJUQ", `${SEP23} (multiplexed, id 0)`),
      S("MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVAAAAAAAAAAAAAJLK", `${SEP23}; stellar/go txnbuild tests`),
      S("GB7BDSZU2Y27LYNLALKKALB52WS2IZWYBDGY6EQBLEED3TJOCVMZRH7H", "stellar/go txnbuild operation tests"),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  tron: {
    valid: [
      S("TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC", TWC("Tron/AddressTests.cpp", "4478651f")),
      S("THRF3GuPnvvPzKoaT8pJex5XHmo8NNbCb3", TWC("Tron/AddressTests.cpp", "4478651f")),
    ],
    testnet: [],
    noTestnet: `${SAME_FORMAT} (Shasta/Nile also use version 0x41)`,
  },
  solana: {
    valid: [
      S("2gVkYWexTHR5Hb2aLeQN3tnngvWzisFKXDUPrgMHpdST", TWC("Solana/AddressTests.cpp", "4478651f")),
      S("HzqnaMjWFbK2io6WgV2Z5uBguCBU21RMUS16wsDUHkon", `${TWC("Solana/AddressTests.cpp", "4478651f")} (isValidOnCurve)`),
      S("SRMuApVNdxXokk5GT7XD5cUUgXMBCoAz2LHeuAoKWRt", `${TWC("Solana/AddressTests.cpp", "4478651f")} (Serum token mint)`),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  cardano: {
    valid: [
      S(
        "addr1qx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzer3n0d3vllmyqwsx5wktcd8cc3sq835lu7drv2xwl2wywfgse35a3x",
        `${CIP19} (mainnet type-00 base)`,
      ),
      S(
        "addr1z8phkx6acpnf78fuvxn0mkew3l0fd058hzquvz7w36x4gten0d3vllmyqwsx5wktcd8cc3sq835lu7drv2xwl2wywfgs9yc0hh",
        `${CIP19} (mainnet type-01)`,
      ),
      S(
        "addr1yx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzerkr0vd4msrxnuwnccdxlhdjar77j6lg0wypcc9uar5d2shs2z78ve",
        `${CIP19} (mainnet type-02)`,
      ),
      S("addr1gx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzer5pnz75xxcrzqf96k", `${CIP19} (mainnet type-04 pointer)`),
      S("addr1vx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzers66hrl8", `${CIP19} (mainnet type-06 enterprise)`),
      S("addr1w8phkx6acpnf78fuvxn0mkew3l0fd058hzquvz7w36x4gtcyjy7wx", `${CIP19} (mainnet type-07 script enterprise)`),
      S(
        "addr1qx52knza2h5x090n4a5r7yraz3pwcamk9ppvuh7e26nfks7pnmhxqavtqy02zezklh27jt9r6z62sav3mugappdc7xnskxy2pn",
        `${CJS} (shelley.grouped.mainnet)`,
      ),
      S("addr1vy36kffjf87vzkuyqc5g0ys3fe3pez5zvqg9r5z9q9kfrkg2cs093", `${CJS} (shelley.single.mainnet)`),
      S(
        "Ae2tdPwUPEZFRbyhz3cpfC2CumGzNkFBN2L42rcUc2yjQpEkxDbkPodpMAi",
        `${CJS} (byron.mainnet.icarus); input-output-hk/cardano-wallet golden tests`,
      ),
      S(
        "DdzFFzCqrhsw3prhfMFDNFowbzUku3QmrMwarfjUbWXRisodn97R436SHc1rimp4MhPNmbdYb1aTdqtGSJixMVMi5MkArDQJ6Sc1n3Ez",
        `${CJS} (byron.mainnet.daedalus)`,
      ),
    ],
    testnet: [
      S(
        "addr_test1qz2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzer3n0d3vllmyqwsx5wktcd8cc3sq835lu7drv2xwl2wywfgs68faae",
        `${CIP19} (testnet type-00)`,
      ),
      S("addr_test1vz2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzerspjrlsz", `${CIP19} (testnet type-06)`),
      S("stake1uyehkck0lajq8gr28t9uxnuvgcqrc6070x3k9r8048z8y5gh6ffgw", `${CIP19} (mainnet type-14 reward address: not a payment address)`),
      S(
        "addr_test1qqydn46r6mhge0kfpqmt36m6q43knzsd9ga32n96m89px3nuzcjqw982pcftgx53fu5527z2cj2tkx2h8ux2vxsg475qypp3m9",
        `${CJS} (shelley.grouped.testnet)`,
      ),
      S(
        "37btjrVyb4KEB2STADSsj3MYSAdj52X5FrFWpw2r7Wmj2GDzXjFRsHWuZqrw7zSkwopv8Ci3VWeg6bisU9dgJxW5hb2MZYeduNKbQJrqz3zVBsu9nT",
        `${CJS} (byron.testnet.daedalus)`,
      ),
      S("2cWKMJemoBakkUSWX3DZdx8eXGeqjN6mkgVUCND1RNB736qWS5v1CGgQGNNTFUZSXaVLj", `${CJS} (byron.testnet.icarus)`),
    ],
  },
  "ss58:0": {
    valid: [
      S("15KRsCq9LLNmCxNFhGk55s5bEyazKefunDxUH24GFZwsTxyu", `${TWC("Polkadot/AddressTests.cpp", "4478651f")} (Polkadot ed25519)`),
      S("15AeCjMpcSt3Fwa47jJBd7JzQ395Kr2cuyF5Zp4UBf1g9ony", `${TWC("Polkadot/AddressTests.cpp", "4478651f")} (Polkadot sr25519)`),
      S("14KjL5vGAYJCbKgZJmFKDSjewtBpvaxx9YvRZvi7qmb5s8CC", `${TWC("Polkadot/AddressTests.cpp", "4478651f")} (prefix 0)`),
    ],
    testnet: [
      S(
        "5FqqU2rytGPhcwQosKRtW1E3ha6BJKAjHgtcodh71dSyXhoZ",
        `${TWC("Polkadot/AddressTests.cpp", "4478651f")} (generic Substrate prefix 42, rejected for DOT)`,
      ),
      S("FHKAe66mnbk8ke8zVWE9hFVFrJN1mprFPVmD5rrevotkcDZ", `${TWC("Polkadot/AddressTests.cpp", "4478651f")} (Kusama, rejected for DOT)`),
    ],
  },
  "ss58:2": {
    valid: [
      S("FHKAe66mnbk8ke8zVWE9hFVFrJN1mprFPVmD5rrevotkcDZ", `${TWC("Kusama/AddressTests.cpp", "035f447b")} (Kusama ed25519)`),
      S("FxQFyTorsjVsjjMyjdgq8w5vGx8LiA1qhWbRYcFijxKKchx", `${TWC("Kusama/AddressTests.cpp", "035f447b")} (Kusama secp256k1)`),
      S("EJ5UJ12GShfh7EWrcNZFLiYU79oogdtXFUuDDZzk7Wb2vCe", `${TWC("Kusama/AddressTests.cpp", "035f447b")} (Kusama sr25519)`),
      S("CeVXtoU4py9e7F6upfM2ZarVave299TjcdaTSxhDDZrYgnM", `${TWC("Kusama/AddressTests.cpp", "035f447b")} (FromPrivateKey)`),
      S("CxDDSH8gS7jecsxaRL9Txf8H5kqesLXAEAEgp76Yz632J9M", "polkadot-js/docs keyring ss58 formats example (Kusama)"),
    ],
    testnet: [
      S("15AeCjMpcSt3Fwa47jJBd7JzQ395Kr2cuyF5Zp4UBf1g9ony", `${TWC("Kusama/AddressTests.cpp", "035f447b")} (Polkadot, rejected for KSM)`),
    ],
  },
  "ss58:42": {
    valid: [
      S("5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY", "leonardocustodio/polkadart packages/ss58/README.md; substrate docs (//Alice)"),
      S("5CSbZ7wG456oty4WoiX6a1J88VUbrCXLhrKVJ9q95BsYH4TZ", "polkadot-js/docs keyring ss58 formats example (generic)"),
      S("5FqqU2rytGPhcwQosKRtW1E3ha6BJKAjHgtcodh71dSyXhoZ", `${TWC("Polkadot/AddressTests.cpp", "4478651f")} (Substrate ed25519)`),
    ],
    testnet: [
      S(
        "15KRsCq9LLNmCxNFhGk55s5bEyazKefunDxUH24GFZwsTxyu",
        `${TWC("Polkadot/AddressTests.cpp", "4478651f")} (Polkadot prefix 0 - wrong network)`,
      ),
    ],
  },
  monero: {
    valid: [
      S(
        "888tNkZrPN6JsEgekjMnABU4TBzc2Dt29EPAvkRxbANsAnjyPbb3iQ1YBRk1UXcdRsiKc9dhwMVgN5S9cQUiyoogDavup3H",
        `${MONERO_AB} (donate@getmonero.org OpenAlias, subaddress)`,
      ),
      S(
        "42ey1afDFnn4886T7196doS9GPMzexD9gXpsZJDwVjeRVdFCSoHnv7KPbBeGpzJBzHRCAs9UxqeoyFQMYbqSWYTfJJQAWDm",
        `${MONERO_AB} (standard address)`,
      ),
      S("87KfgTZ8ER5D3Frefqnrqif11TjVsTPaTcp37kqqKMrdDRUhpJRczeR7KiBmSHF32UJLP3HHhKUDmEQyJrv2mV8yFDCq8eB", `${MONERO_AB} (subaddress)`),
    ],
    testnet: [
      S(
        "9ujeXrjzf7bfeK3KZdCqnYaMwZVFuXemPU8Ubw335rj2FN1CdMiWNyFV3ksEfMFvRp9L9qum5UxkP5rN9aLcPxbH1au4WAB",
        `${MONERO_AB} (testnet address the mainnet wallet must refuse)`,
      ),
      D(
        "9xrHXdaH5JnJsEgekjMnABU4TBzc2Dt29EPAvkRxbANsAnjyPbb3iQ1YBRk1UXcdRsiKc9dhwMVgN5S9cQUiyoogDYL6EkP",
        "888tNkZr... keys with testnet network byte 53",
      ),
    ],
  },
  nano: {
    valid: [
      S(
        "xrb_3t6k35gi95xu6tergt6p69ck76ogmitsa8mnijtpxm9fkcm736xtoncuohr3",
        "nanocurrency/nano-node nano/secure/common.cpp @0091262d (live genesis account)",
      ),
      S(
        "nano_3qb6o6i1tkzr6jwr5s7eehfxwg9x6eemitdinbpi7u8bjjwsgqfj4wzser3x",
        "nanocurrency/nano-node nano/secure/common.cpp @0091262d (live epoch v2 signer)",
      ),
      S(
        "nano_1z7ty8bc8xjxou6zmgp3pd8zesgr8thra17nqjfdbgjjr17tnj16fjntfqfn",
        "nanocurrency/nano-node nano/secure/common.cpp @0091262d (live final-votes canary)",
      ),
      S("nano_1nanode8ngaakzbck8smq6ru9bethqwyehomf79sae1k7xd47dkidjqzffeg", TWC("Nano/AddressTests.cpp", "43a6204d")),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  algorand: {
    valid: [
      S("HXIWBVQGOO6ZWE5NYJO22XMYRUGZ6TGNX2K2EERPT3ZIWPHE5CLJGB2GEA", TWC("Algorand/AddressTests.cpp", "4478651f")),
      S("JBCQYJ2FREG667NAN7BFKH4RFIKPT7CYDQJNW3SNN5Z7F7ILFLKQ346TSU", TWC("Algorand/AddressTests.cpp", "4478651f")),
      S("YK2CHL5IWAEV4WXBAVTIXENSCMW3JWW36OFM7RSJBDJUO2QADEP5QYVO5I", TWC("Algorand/AddressTests.cpp", "4478651f")),
      S("PITDOF57RHOVLT37KM7DCXDCETLDL3OA5CBAN7LQ44Z36LGFC27IJ2IQ64", TWC("Algorand/AddressTests.cpp", "4478651f")),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  tezos: {
    valid: [
      S("tz1eZwq8b5cvE2bPKokatLkVMzkxz24z3Don", `${TWC("Tezos/AddressTests.cpp", "4478651f")} (tz1)`),
      S("tz2Rh3NYeLxrqTuvaZJmaMiVMqCajeXMWtYo", `${TWC("Tezos/AddressTests.cpp", "4478651f")} (tz2)`),
      S("tz3RDC3Jdn4j15J7bBHZd29EUee9gVB1CxD9", `${TWC("Tezos/AddressTests.cpp", "4478651f")} (tz3)`),
      S("KT1XnTn74bUtxHfDtBmm2bGZAQfhPbvKWR8o", `${TWC("Tezos/AddressTests.cpp", "4478651f")} (KT1)`),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "eosio-account": {
    valid: [
      S("eosio", `${WC5("EOS/TWAnySignerTests.cpp")} (transfer recipient)`),
      S("satoshis12345", `${WC5("EOS/NameTests.cpp")} (valid 13-character name)`),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "hedera-account": {
    valid: [
      S("0.0.1377988", TWC("Hedera/AddressTests.cpp", "101789e1")),
      S("0.0.1", TWC("Hedera/AddressTests.cpp", "101789e1")),
      S("0.0.19790", `${WC5("Hedera/TWCoinTypeTests.cpp")} (hashscan mainnet account URL)`),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "near-account": {
    valid: [
      S(
        "917b3d268d4b58f7fec1b150bd68d69be3ee5d4cc39855e341538465bb77860d",
        `${TWC("NEAR/AddressTests.cpp", "4478651f")} (implicit account)`,
      ),
      S(
        "9685af3fe2dc231e5069ccff8ec6950eb961d42ebb9116a8ab9c0d38f9e45249",
        `${TWC("NEAR/AddressTests.cpp", "4478651f")} (implicit account)`,
      ),
      S("test-trust.vlad.near", `${WC5("NEAR/TWCoinTypeTests.cpp")} (nearblocks account URL)`),
      S("app_1.alice.near", `${WC5("NEAR/AccountTests.cpp")} (Account::isValid)`),
    ],
    testnet: [S("vdx.testnet", `${WC5("NEAR/SerializationTests.cpp")} (testnet signer)`)],
  },
  hex32: {
    valid: [
      S("0xeeff357ea5c1a4e7bc11b2b17ff2dc2dcca69750bfef1e1ebcaccf8c8018175b", TWC("Aptos/AddressTests.cpp", "265ba7a9")),
      S(
        "0xe9c4d0b6fe32a5cc8ebd1e9ad5b54a0276a57f2d081dcb5e30342319963626c3",
        `${TWC("Aptos/AddressTests.cpp", "265ba7a9")} (FromPublicKey)`,
      ),
      S("0x259ff8074ab425cbb489f236e18e08f03f1a7856bdf7c7a2877bd64f738b5015", TWC("Sui/AddressTests.cpp", "035f447b")),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  ton: {
    valid: [
      S("EQAKtVj024T9MfYaJzU1xnDAkf_GGbHNu-V2mgvyjTuP6rvC", "ton-community/ton-kotlin block-tlb/test/AddrStdTest.kt"),
      S("EQCKhieGGl3ZbJ2zzggHsSLaXtRzk0znVopbSxw2HLsorkdl", `${TWC("TheOpenNetwork/AddressTests.cpp", "02634d62")} (bounceable)`),
      S("UQCKhieGGl3ZbJ2zzggHsSLaXtRzk0znVopbSxw2HLsorhqg", `${TWC("TheOpenNetwork/AddressTests.cpp", "02634d62")} (non-bounceable)`),
      S("EQBGqFmKe3oY8PChYN9g92ZEV2ybkzVB-hCiesQRn5mFnrNv", TWC("TheOpenNetwork/AddressTests.cpp", "02634d62")),
      S("EQAN6Dr3vziti1Kp9D3aEFqJX4bBVfCaV57Z+9jwKTBXICv8", `${TWC("TheOpenNetwork/AddressTests.cpp", "02634d62")} (standard base64)`),
    ],
    testnet: [
      S("0QAs9VlT6S776tq3unJcP5Ogsj-ELLunLXuOb1EKcOQi4-QO", "ton-community/ton src/address/Address.spec.ts (isTestOnly)"),
      S("kQAs9VlT6S776tq3unJcP5Ogsj-ELLunLXuOb1EKcOQi47nL", "ton-community/ton src/address/Address.spec.ts (isTestOnly)"),
      S("kQCKhieGGl3ZbJ2zzggHsSLaXtRzk0znVopbSxw2HLsorvzv", `${TWC("TheOpenNetwork/AddressTests.cpp", "02634d62")} (test-only bounceable)`),
      S(
        "0QCKhieGGl3ZbJ2zzggHsSLaXtRzk0znVopbSxw2HLsorqEq",
        `${TWC("TheOpenNetwork/AddressTests.cpp", "02634d62")} (test-only non-bounceable)`,
      ),
    ],
  },
  "icp-account": {
    valid: [
      S(
        "529ea51c22e8d66e8302eabd9297b100fdb369109822248bb86939a671fbc55b",
        `${WC5("InternetComputer/TWCoinTypeTests.cpp")} (dashboard account URL)`,
      ),
      S("58b26ace22a36a0011608a130e84c7cf34ba469c38d24ccf606152ce7de91f4e", WC5("InternetComputer/TWAnyAddressTests.cpp")),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  filecoin: {
    valid: [
      S("f15ihq5ibzwki2b4ep2f46avlkrqzhpqgtga7pdrq", `${TWC("Filecoin/AddressTests.cpp", "222e161f")} (secp256k1)`),
      S("f24vg6ut43yw2h2jqydgbg2xq7x6f4kub3bg6as6i", `${TWC("Filecoin/AddressTests.cpp", "222e161f")} (actor)`),
      S(
        "f3vvmn62lofvhjd2ugzca6sof2j2ubwok6cj4xxbfzz4yuxfkgobpihhd2thlanmsh3w2ptld2gqkn2jvlss4a",
        `${TWC("Filecoin/AddressTests.cpp", "222e161f")} (BLS)`,
      ),
      S("f410frw6wy7w6sbsguyn3yzeygg34fgf72n5ao5sxyky", `${TWC("Filecoin/AddressTests.cpp", "222e161f")} (delegated, f410)`),
    ],
    testnet: [
      S("t15ihq5ibzwki2b4ep2f46avlkrqzhpqgtga7pdrq", `${TWC("Filecoin/AddressTests.cpp", "222e161f")} (invalidAddresses: "Test net")`),
      D("t1abjxfbp274xpdqcpuaykwkfb43omjotacm2p3za", "f1abjx... (recalled mainnet address) with the testnet network prefix t"),
    ],
  },
  neo3: {
    valid: [
      S(
        "NPvKVTGZapmFWABLsyvfreuqn73jCjJtN1",
        "neo-project/docs docs/zh-cn/reference/rpc/latest-version/api/validateaddress.md @0480f25e (isvalid: true)",
      ),
      S(
        "NZos4XyLUEUrD7RQBn9J1A1PyeCwQKqwtT",
        "neo-project/docs docs/zh-cn/reference/rpc/latest-version/api/sendfrom.md @1ace5440 (recipient)",
      ),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  ontology: {
    valid: [
      S("ANDfjwrUroaVtvBguDtrWKRMyxFwvVwnZD", TWC("Ontology/AddressTests.cpp", "43a6204d")),
      S("AeicEjZyiXKgUeSBbYQHxsU1X3V5Buori5", `${TWC("Ontology/AddressTests.cpp", "43a6204d")} (fromPubKey)`),
      S("AYTxeseHT5khTWhtWX1pFFP1mbQrd4q1zz", `${TWC("Ontology/AddressTests.cpp", "43a6204d")} (fromString)`),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  waves: {
    valid: [
      S("3PLANf4MgtNN5v6k4NNnyx2m4zKJiw1tF9v", TWC("Waves/AddressTests.cpp", "3d1aaf07")),
      S("3PDjjLFDR5aWkKgufika7KSLnGmAe8ueDpC", TWC("Waves/AddressTests.cpp", "3d1aaf07")),
      S("3P2uzAzX9XTu1t32GkWw68YFFLwtapWvDds", `${TWC("Waves/AddressTests.cpp", "3d1aaf07")} (FromPublicKey)`),
    ],
    testnet: [D("3MxW8ZFCQUQDg7xagmGQQcwbQDmNGLfZVAn", "3PAWwWa6... (recalled mainnet address) hash with testnet chain id 'T'")],
  },
  stacks: {
    valid: [
      S("SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7", "stacks-network/c32check tests (version 22, a46ff888...)"),
      F(
        "SM2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKQVX8X0G",
        "Stacks c32 reference implementation doctests (Python c32.py b58ToC32/c32ToB58, version 20, a46ff888...); file not recorded",
      ),
      F("SP000000000000000000002Q6VF78", "stacks-core Clarity tests (SIMPLE_NAMES burn-address); file not recorded"),
    ],
    testnet: [
      F(
        "ST2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKQYAC0RQ",
        "Stacks c32 reference implementation doctests (b58ToC32 of a testnet address, version 26); file not recorded",
      ),
    ],
  },
  casper: {
    valid: [
      F(
        "01deba7173738a7f55de3ad9dc27e081df41ff285f25887ec424a8a65b43d0cf77",
        'Casper wallet/explorer code (AccountModel comment "copied from casper-explorer", ed25519 public key); file not recorded',
      ),
      F(
        "01252f367c8cfe14bf796a6ad298d9ad7a8d2eb22907e047b37e6bbb76d7b636b2",
        "casper-js-sdk usage example (PublicKey.fromHex); file not recorded",
      ),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  flow: {
    valid: [
      S("0x1654653399040a61", "onflow/fcl-js packages/kit/src/constants.ts @ff07e0ea (mainnet FlowToken)"),
      S("0xf233dcee88fe0abe", "onflow/fcl-js packages/kit/src/constants.ts @ff07e0ea (mainnet FungibleToken)"),
      S("0xe467b9dd11fa00df", "onflow/fcl-js packages/kit/src/constants.ts @ff07e0ea (mainnet EVM / service account)"),
    ],
    testnet: [
      S("0x7e60df042a9c0868", "onflow/fcl-js packages/kit/src/constants.ts @ff07e0ea (testnet FlowToken)"),
      S("0x9a0766d93b6608b7", "onflow/fcl-js packages/kit/src/constants.ts @ff07e0ea (testnet FungibleToken)"),
    ],
  },
  mina: {
    valid: [
      S(
        "B62qiy32p8kAKnny8ZFwoMhYpBppM1DWVCqAPBYNcXnsAHhnfAAuXgg",
        "o1-labs/o1js src/mina-signer/src/test-vectors/legacySignatures.ts @1f94ea28 (keypair.publicKey)",
      ),
      S(
        "B62qrcFstkpqXww1EkSGrqMCwCNho86kuqBd4FrAAUsPxNKdiPzAUsy",
        "o1-labs/o1js src/mina-signer/src/test-vectors/legacySignatures.ts @1f94ea28 (receiver)",
      ),
      S(
        "B62qkfHpLpELqpMK6ZvUTJ5wRqKDRF3UHyJ4Kv3FU79Sgs4qpBnx5RR",
        "o1-labs/o1js src/mina-signer/src/test-vectors/legacySignatures.ts @1f94ea28 (newDelegate)",
      ),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  arweave: {
    valid: [
      S("1seRanklLU_1VTGkEk7P0xAwMJfA7owA1JHW5KyZKlY", "ArweaveTeam/arweave-js README.md @00db52b5 (wallet to wallet transaction target)"),
      S(
        "c9dsHNfLKhdpj5yArJluNxpC_Z5zN9oYYuhQ6wcHdZw",
        "ArweaveTeam/arweave-js test/fixtures/block_height_1000000.json @39d8ef27 (reward_addr of mainnet block 1000000)",
      ),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "bech32m:ckb": {
    valid: [
      S(
        "ckb1qzda0cr08m85hc8jlnfp3zer7xulejywt49kt2rr0vthywaa50xwsqwyk5x9erg8furras980hksatlslfaktks7epf25",
        `${TWC("Nervos/AddressTests.cpp", "035f447b")} (full format)`,
      ),
      S("ckb1qyqvfdgvtjxswncx8mq2wl0dp6hlp7nmvhdqcecnt6", `${TWC("Nervos/AddressTests.cpp", "035f447b")} (deprecated short format)`),
      S(
        "ckb1qjda0cr08m85hc8jlnfp3zer7xulejywt49kt2rr0vthywaa50xw3394p3wg6p60qclvpfmaa582lu860dja5h0fk0v",
        `${TWC("Nervos/AddressTests.cpp", "035f447b")} (deprecated full format, type 0x04)`,
      ),
      S(
        "ckb1qzda0cr08m85hc8jlnfp3zer7xulejywt49kt2rr0vthywaa50xwsqdnnw7qkdnnclfkg59uzn8umtfd2kwxceqxwquc4",
        "ckb-js/lumos packages/helpers/tests/generate_address_ckb2021.test.ts @4edfce46 (full format, secp256k1-blake160)",
      ),
    ],
    testnet: [
      S(
        "ckt1qzda0cr08m85hc8jlnfp3zer7xulejywt49kt2rr0vthywaa50xwsqg4nzg20jktgj54hmc8gvrygv7hv00z98qklce9w",
        "ckb-js/lumos packages/helpers/tests/encode_address.test.ts @4edfce46 (testnet full format)",
      ),
      D(
        "ckt1qzda0cr08m85hc8jlnfp3zer7xulejywt49kt2rr0vthywaa50xwsqdnnw7qkdnnclfkg59uzn8umtfd2kwxceqgutnjd",
        "full-format example with the ckt HRP",
      ),
    ],
  },
  conflux: {
    valid: [
      S(
        "cfx:aak2rra2njvd77ezwjvx04kkds9fzagfe6ku8scz91",
        "Conflux-Chain/js-conflux-sdk test/util/address.test.js @4219e1ec (MAINNET_ADDRESS)",
      ),
      F(
        "cfx:acc7uawf5ubtnmezvhu9dhc6sghea0403y2dgpyfjp",
        "CIP-37 test case 0x85d80245... on network 1029 as encoded in Conflux's conflux-rust / go-conflux-sdk address tests; files not recorded",
      ),
      S(
        "CFX:TYPE.USER:AAJG4WT2MBMBB44SP6SZD783RY0JTAD5BEA80XDY7P",
        "resodo/conflux-address-js README.md @0cbbe3d1 (verbose encoding of 106d49f8..., net 1029)",
      ),
      S("cfx:aajg4wt2mbmbb44sp6szd783ry0jtad5bea80xdy7p", "resodo/conflux-address-js README.md @0cbbe3d1 (same account, plain form)"),
    ],
    testnet: [
      S(
        "cfxtest:aak2rra2njvd77ezwjvx04kkds9fzagfe6d5r8e957",
        "Conflux-Chain/js-conflux-sdk test/util/address.test.js @4219e1ec (TESTNET_ADDRESS)",
      ),
    ],
  },
  kadena: {
    valid: [
      S(
        "k:368820f80c324bbc7c2b0610688a7da43e39f91d118732671cd9c7500ff43cca",
        "kadena-community/kadena.js packages/libs/client-utils/src/integration-tests/built-in.int.test.ts @1049852e (createPrincipal of one key)",
      ),
      S(
        "k:5a2afbc4564b76b2c27ce5a644cab643c43663835ea0be22433b209d3351f937",
        "kadena-community/kadena.js packages/libs/client-utils/src/integration-tests/test-data/accounts.ts @19885e62 (sourceAccount)",
      ),
      F(
        "k:f1e12312e4ee8c156b041c3bcc7e422e7d15cb2ddce58c6ff16742770916cfaa",
        'Kadena documentation "Transfer assets" how-to (coin.transfer sender); file not recorded',
      ),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  siacoin: {
    valid: [
      S(
        "72b0762b382d4c251af5ae25b6777d908726d75962e5224f98d7f619bb39515dd64b9a56043a",
        "SiaFoundation/core types/policy_test.go @85bb6bf4 (TestPolicyGolden) (standard unlock conditions)",
      ),
      S(
        "111d2995afa8bf162180a647b9f1eb6a275fe8818e836b69b351871d5caf9c590ed25aec0616",
        "SiaFoundation/core types/policy_test.go @85bb6bf4 (TestPolicyGolden) (threshold policy)",
      ),
    ],
    testnet: [
      D(
        "000000000000000000000000000000000000000000000000000000000000000089eb0d6a8a69",
        "types.VoidAddress (SiaFoundation/core types/types.go: the zero address) rendered by Address.String(): rejected, coins sent there are burnt",
      ),
    ],
  },
  ardor: {
    valid: [
      S("ARDOR-XK4R-7VJU-6EQG-7R335", "ardornxtgroup/ardor @945248cd html/www/js/test/test.nxtaddress.js (valid address)"),
      S(
        "ARDOR-XKA2-7VJU-VZSY-7R335",
        "ardornxtgroup/ardor @945248cd html/www/js/test/test.nrs.util.js (getAccountLink of account 5873880488492320000)",
      ),
      S("ARDOR-V4D7-D3XW-JX9Z-EAC8K", "ardornxtgroup/ardor @945248cd html/www/js/test/test.nrs.util.js (account 14454664023893707109)"),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "graphene-account": {
    valid: [
      S("ned", "steemit/steem-js test/api.test.ts @4a7f2f98 (getFollowers account)"),
      S("guest123", "steemit/steem-js test/broadcast.test.ts @4a7f2f98 (default broadcast account)"),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  ergo: {
    valid: [
      S(
        "9fRAWhdxEsTcdb8PhGNrZfwqa65zfkuYHAMmkQLcic1gdLSV5vA",
        "ergoplatform/sigma-rust ergotree-ir/src/chain/address.rs @08fa128c (address examples) (mainnet P2PK)",
      ),
      S(
        "8UApt8czfFVuTgQmMwtsRBZ4nfWquNiSwCWUjMg",
        "ergoplatform/sigma-rust ergotree-ir/src/chain/address.rs @08fa128c (address examples) (mainnet P2SH)",
      ),
    ],
    testnet: [
      S(
        "3WvsT2Gm4EpsM9Pg18PdY6XyhNNMqXDsvJTbbf6ihLvAmSb7u5RN",
        "ergoplatform/sigma-rust ergotree-ir/src/chain/address.rs @08fa128c (address examples) (testnet P2PK)",
      ),
      S(
        "rbcrmKEYduUvADj9Ts3dSVSG27h54pgrq5fPuwB",
        "ergoplatform/sigma-rust ergotree-ir/src/chain/address.rs @08fa128c (address examples) (testnet P2SH)",
      ),
      D("3WwWK6U2khXfCuoREuafbMBjpXJXMN6Y9M8Sj1wrUNfQBvaF4gBo", "9fRAWhdx... key with the testnet network prefix 0x10"),
    ],
  },
  starknet: {
    valid: [
      S(
        "0x04718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d",
        "starknet-io/starknet.js @f6da6265 __tests__/config/helpers/testInstances.ts (STRKtokenAddress)",
      ),
      S(
        "0x049d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7",
        "starknet-io/starknet.js @f6da6265 __tests__/config/helpers/testInstances.ts (ETHtokenAddress)",
      ),
      S(
        "0x7ee790591d9fa3efc87067d95a643f8455e0b8190eb8cb7bfd39e4fb7571fdf",
        "starknet-io/starknet.js @f6da6265 __tests__/utils/address.test.ts (validateAndParseAddress)",
      ),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  decred: {
    valid: [
      S("DsmcYVbP1Nmag2H4AS17UTvmWXmGeA7nLDx", TWC("Decred/AddressTests.cpp", "035f447b")),
      S("Dcur2mcGjmENx4DhNqDctW5wJCVyT3Qeqkx", `${TWC("Decred/AddressTests.cpp", "035f447b")} (P2SH)`),
      S("DsVMHD5D86dpRnt2GPZvv4bYUJZg6B9Pzqa", `${TWC("Decred/AddressTests.cpp", "035f447b")} (HD derivation)`),
    ],
    testnet: [D("TsUdBwvnhEx5EZt2m4D23WUpC1fh4DqDtHT", "DsUZxxoH... (recalled mainnet address) hash with testnet id 0x0f21")],
  },
  "bech32:cosmos": {
    valid: [
      S("cosmos1hsk6jryyqjfhp5dhc55tc9jtckygx0eph6dd02", TWC("Cosmos/AddressTests.cpp", "4478651f")),
      S("cosmos1gu6y2a0ffteesyeyeesk23082c6998xyzmt9mz", `${TWC("Cosmos/TWCoinTypeTests.cpp", "035f447b")} (mintscan account URL)`),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "bech32:osmo": {
    valid: [
      S("osmo1mky69cn8ektwy0845vec9upsdphktxt0en97f5", TWC("Cosmos/Osmosis/AddressTests.cpp", "8f3c45c9")),
      S("osmo18s0hdnsllgcclweu9aymw4ngktr2k0rkvn7jmn", TWC("Cosmos/Osmosis/AddressTests.cpp", "8f3c45c9")),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "bech32:inj": {
    valid: [
      S("inj14py36sx57ud82t9yrks9z6hdsrpn5x6k8tf7m3", TWC("Cosmos/NativeInjective/TWAnyAddressTests.cpp", "035f447b")),
      S(
        "inj1xmpkmxr4as00em23tc2zgmuyy2gr4h3wgcl6vd",
        `${TWC("Cosmos/NativeInjective/TWCoinTypeTests.cpp", "265ba7a9")} (mintscan account URL)`,
      ),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "bech32:thor": {
    valid: [
      S("thor1z53wwe7md6cewz9sqwqzn0aavpaun0gw0exn2r", TWC("Cosmos/THORChain/TWAnyAddressTests.cpp", "4478651f")),
      S("thor1c8jd7ad9pcw4k3wkuqlkz4auv95mldr2kyhc65", TWC("Cosmos/THORChain/TWAnyAddressTests.cpp", "4478651f")),
    ],
    testnet: [D("tthor1z53wwe7md6cewz9sqwqzn0aavpaun0gwtwhrnx", "thor1z53w... key hash with the tthor testnet HRP")],
  },
  "bech32:terra": {
    valid: [
      S(
        "terra16t3gx5rqvz6ru37yzn3shuu20erv4ngmfr59zf",
        `${TWC("Cosmos/TerraV2/TWCoinTypeTests.cpp", "4478651f")} (finder mainnet URL); also Cosmos/Terra/TWCoinTypeTests.cpp`,
      ),
      S("terra1hsk6jryyqjfhp5dhc55tc9jtckygx0ep37hdd2", `${WC5("Cosmos/Terra/SignerTests.cpp")} (fromAddress)`),
      S("terra14z56l0fp2lsf86zy3hty2z47ezkhnthtr9yq76", `${WC5("Cosmos/Terra/SignerTests.cpp")} (ANC token contract)`),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "bech32:erd": {
    valid: [
      S(
        "erd1qyu5wthldzr8wx5c9ucg8kjagg0jfs53s8nr3zpz3hypefsdd8ssycr6th",
        `${TWC("MultiversX/TestAccounts.h", "265ba7a9")} (alice, mx-sdk-testwallets)`,
      ),
      S("erd1spyavw0956vq68xj8y4tenjpq2wd5a9p2c6j8gsz7ztyrnpxrruqzu66jx", `${TWC("MultiversX/TestAccounts.h", "265ba7a9")} (bob)`),
      S("erd1k2s324ww2g0yj38qn2ch2jwctdy8mnfxep94q9arncc6xecg3xaq6mjse8", `${TWC("MultiversX/TestAccounts.h", "265ba7a9")} (carol)`),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "bech32:zil": {
    valid: [
      S("zil1fwh4ltdguhde9s7nysnp33d5wye6uqpugufkz7", TWC("Zilliqa/AddressTests.cpp", "01ff1817")),
      S("zil1j8xae6lggm8y63m3y2r7aefu797ze7mhzulnqg", `${TWC("Zilliqa/AddressTests.cpp", "01ff1817")} (FromPrivateKey)`),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "bech32:one": {
    valid: [
      S("one1a50tun737ulcvwy0yvve0pvu5skq0kjargvhwe", TWC("Harmony/AddressTests.cpp", "277306d9")),
      S("one1tp7xdd9ewwnmyvws96au0e7e7mz6f8hjqr3g3p", TWC("Harmony/AddressTests.cpp", "277306d9")),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "bech32:oasis": {
    valid: [
      S("oasis1qp0cnmkjl22gky6p6qeghjytt4v7dkxsrsmueweh", TWC("Oasis/AddressTests.cpp", "035f447b")),
      S("oasis1qzawzy5kaa2xgphenf3r0f5enpr3mx5dps559yxm", `${TWC("Oasis/AddressTests.cpp", "035f447b")} (FromPrivateKey)`),
      S("oasis1qphdkldpttpsj2j3l9sde9h26cwpfwqwwuhvruyu", `${TWC("Oasis/AddressTests.cpp", "035f447b")} (FromPublicKey)`),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "bech32:bnb": {
    valid: [
      S("bnb1grpf0955h0ykzq3ar5nmum7y6gdfl6lxfn46h2", TWC("Cosmos/AddressTests.cpp", "4478651f")),
      S("bnb1h8xf9htasu9aclra954dnnve8fgcda4ae7qfa8", `${TWC("Binance/AddressTests.cpp", "2ef41c98")} (mainnet)`),
    ],
    testnet: [
      S("tbnb1h8xf9htasu9aclra954dnnve8fgcda4ahtfdak", `${TWC("Binance/AddressTests.cpp", "2ef41c98")} (testnet)`),
      S("tbnb1x4hxmtdf7pwea9dghq73dufh3qspm8gp5qht9c", `${TWC("Binance/AddressTests.cpp", "2ef41c98")} (testnet)`),
      D("tbnb1grpf0955h0ykzq3ar5nmum7y6gdfl6lx8xu7hm", "bnb1grpf... with the tbnb testnet HRP"),
    ],
  },
  "bech32:celestia": {
    valid: [
      S("celestia1mry47pkga5tdswtluy0m8teslpalkdq00tp7xc", TWC("Cosmos/Tia/TWAnyAddressTests.cpp", "4478651f")),
      S("celestia1tt4tv4jrs4twdtzwywxd8u65duxgk8y73wvfu2", `${TWC("Cosmos/Tia/TWCoinTypeTests.cpp", "12f09abe")} (mintscan account URL)`),
      F("celestia1jc92qdnty48pafummfr8ava2tjtuhfdw774w60", "celestia-app Go tests (testAddress)"),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "bech32:kava": {
    valid: [
      S("kava1xd39avn2f008jmvua0eupg39zsp2xn3wf802vn", `${TWC("Cosmos/Kava/TWCoinTypeTests.cpp", "4478651f")} (mintscan account URL)`),
      F("kava1r4v2zdhdalfj2ydazallqvrus9fkphmglhn6u6", "Kava-Labs/kava bep3 deputy addresses"),
      F("kava1cd8z53n7gh2hvz0lmmkzxkysfp5pghufat3h4a", "Kava-Labs/kava module spec table (Owner example)"),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "bech32:dydx": {
    valid: [
      F("dydx199tqg4wdlnu4qjlxchpd7seg454937hjrknju4", "dydxprotocol/v4-chain test accounts script (alice)"),
      F("dydx16h7p7f4dysrgtzptxx2gtpt5d8t834g9dj830z", "dydxprotocol/v4-chain Go test constants (TestAddress1)"),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "bech32:sei": {
    valid: [
      S("sei1mry47pkga5tdswtluy0m8teslpalkdq0ndpc65", TWC("Cosmos/Sei/TWAnyAddressTests.cpp", "4478651f")),
      S(
        "sei155hqv2rsypqzq0zpjn72frsxx4l6tcmplw63m2",
        `${TWC("Cosmos/Sei/TWCoinTypeTests.cpp", "2f52e105")} (pacific-1 mintscan account URL)`,
      ),
      F("sei1gv86dp8wmnmmatdckgr5xkevnpmy46624uajng", "public source code (pacific-1 address table)"),
      F("sei1n4aqj7lucydfdfmml7kvw2lecld99ere8nv7gv", "public source code (CosmWasm client example)"),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "bech32:secret": {
    valid: [
      S("secret16vw3fp7x35tzmwlkdkyzr8vgscn0zewtduyjuf", TWC("Cosmos/Secret/AddressTests.cpp", "8f3c45c9")),
      S("secret15rgv8teecnt53h0gdvngzt3am3yuz3rxh4fnle", TWC("Cosmos/Secret/AddressTests.cpp", "8f3c45c9")),
      S("secret1pjp5dpvrjumn653dycszk3g264zgqusz2xhdq7", TWC("Cosmos/Secret/AddressTests.cpp", "8f3c45c9")),
      F("secret1tqmms5awftpuhalcv5h5mg76fa0tkdz4jv9ex4", "public source code (Secret Network ICS-20 contract address)"),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "bech32:akash": {
    valid: [
      S("akash1mry47pkga5tdswtluy0m8teslpalkdq0n6af90", TWC("Cosmos/Akash/TWAnyAddressTests.cpp", "265ba7a9")),
      S(
        "akash1f4nskxfw8ufhwnajh7xwt0wmdtxm02vwta6krg",
        `${TWC("Cosmos/Akash/TWCoinTypeTests.cpp", "4478651f")} (akashnet-2 mintscan account URL)`,
      ),
      F("akash1365yvmc4s7awdyj3n2sav7xfx76adc6dnmlx63", "Akash provider configuration (auditor signedBy)"),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "bech32:band": {
    valid: [
      S("band12nmsm9khdsv0tywge43q3zwj8kkj3hvup9rltp", `${TWC("Cosmos/BandChain/TWCoinTypeTests.cpp", "035f447b")} (account URL)`),
      S("band16gpgu994g2gdrzvwp9047le3pcq9wz6mcgtd4w", `${WC5("Cosmos/BandChain/TWCoinTypeTests.cpp")} (mintscan account URL)`),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "bech32:cro": {
    valid: [
      S("cro1ctwtcwpgksky988dhth6jslxveumgu0d45zgf0", TWC("Cosmos/CryptoOrg/AddressTests.cpp", "8f3c45c9")),
      S("cro1xpahy6c7wldxacv6ld99h435mhvfnsup24vcus", TWC("Cosmos/CryptoOrg/AddressTests.cpp", "8f3c45c9")),
      S("cro1z53wwe7md6cewz9sqwqzn0aavpaun0gw39h3rd", `${TWC("Cosmos/CryptoOrg/AddressTests.cpp", "8f3c45c9")} (FromPrivateKey)`),
      S("cro1y8ua5laceufhqtwzyhahq0qk7rm87hhugtsfey", TWC("Cosmos/CryptoOrg/AddressTests.cpp", "8f3c45c9")),
    ],
    testnet: [D("tcro1z53wwe7md6cewz9sqwqzn0aavpaun0gwls74ru", "cro1z53w... key hash with the tcro testnet HRP")],
  },
  "bech32:noble": {
    valid: [
      S("noble1mry47pkga5tdswtluy0m8teslpalkdq0kz9xym", TWC("Cosmos/Noble/TWAnyAddressTests.cpp", "13e3ac43")),
      S(
        "noble1y2egevq0nyzm7w6a9kpxkw86eqytcvxpwsp6d9",
        `${TWC("Cosmos/Noble/TWCoinTypeTests.cpp", "12f09abe")} (noble-1 mintscan account URL)`,
      ),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
  "bech32m:xch": {
    valid: [
      F(
        "xch1crwg0ryz5rf90a6xmmspza2jmhc437sllnen8m7nu2dlx7ugjs9qaxgyjw",
        "nongyehezuoshe/bech32m-chia README.md (third-party Chia bech32m library; its XCH support address)",
      ),
      F(
        "xch19m2x9cdfeydgl4ua5ur48tvsd32mw779etfcyxjn0qwqnem22nwshhqjw5",
        "public C++ Chia library test (clvm/bech32.h, TEST(Key, EncodePuzzleHash) SZ_ADDRESS); file not recorded",
      ),
    ],
    testnet: [D("txch1crwg0ryz5rf90a6xmmspza2jmhc437sllnen8m7nu2dlx7ugjs9qsp0jna", "xch1crwg... puzzle hash with the txch testnet HRP")],
  },
  icon: {
    valid: [
      S("hx116f042497e5f34268b1b91e742680f84cf4e9f3", TWC("ICON/AddressTests.cpp", "3d1aaf07")),
      S("hx98c0832ca5bd8e8bf355ca9491888aa9725c2c48", `${TWC("ICON/AddressTests.cpp", "3d1aaf07")} (FromPrivateKey)`),
    ],
    testnet: [],
    noTestnet: SAME_FORMAT,
  },
};

/** Wrong-network pairs used by the tests: an address that is valid for `valid` but must fail for `family`. */
export const WRONG_NETWORK: Array<{ family: string; address: string; note: string }> = [
  {
    family: "ss58:0",
    address: "FHKAe66mnbk8ke8zVWE9hFVFrJN1mprFPVmD5rrevotkcDZ",
    note: "Kusama address as DOT (wallet-core Polkadot/AddressTests.cpp)",
  },
  {
    family: "ss58:2",
    address: "15KRsCq9LLNmCxNFhGk55s5bEyazKefunDxUH24GFZwsTxyu",
    note: "Polkadot address as KSM (wallet-core Polkadot/AddressTests.cpp)",
  },
  { family: "utxo:ltc", address: "3LRW7jeCvQCRdPF8S3yUCfRAx4eqXFmdcr", note: "BTC P2SH as LTC" },
  { family: "cashaddr:ecash", address: "bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a", note: "BCH CashAddr as XEC" },
  { family: "cashaddr:bch", address: "1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu", note: "legacy base58 as BCH (CashAddr required)" },
  { family: "tron", address: "1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH", note: "BTC as TRON" },
  { family: "stellar", address: "SAB5556L5AN5KSR5WF7UOEFDCIODEWEO7H2UR4S5R62DFTQOGLKOVZDY", note: "Stellar secret seed is not an address" },
  {
    family: "stellar",
    address: "CA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUWDA",
    note: "SEP-23 contract strkey is not an account",
  },
  {
    family: "bech32:cro",
    address: "cosmos1hsk6jryyqjfhp5dhc55tc9jtckygx0eph6dd02",
    note: "Cosmos address as CRO (wallet-core CryptoOrg/AddressTests.cpp)",
  },
];
