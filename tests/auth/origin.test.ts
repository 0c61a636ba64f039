import { describe, expect, it } from "vitest";
import { getContractWalletChainIds, getRpcUrls } from "@/lib/auth/origin";
import { getConfig } from "@/lib/config";
import { settingsForTests } from "../support/settings";

describe("SIWE_RPC_URL", () => {
  const { set } = settingsForTests({}, { afterEach: true });

  it("names one node per chain id; contract wallets can sign in on the allowed chains that have one", () => {
    set({
      SIWE_CHAIN_IDS: "1,8453,10",
      SIWE_RPC_URL: "1=https://eth.example/v3/key?x=1, 8453=http://127.0.0.1:8545,42161=https://arb.example",
    });
    expect([...getRpcUrls()]).toEqual([
      [1, "https://eth.example/v3/key?x=1"],
      [8453, "http://127.0.0.1:8545"],
      [42161, "https://arb.example"],
    ]);
    expect(getContractWalletChainIds()).toEqual([1, 8453]);
  });

  it("unset or empty: no node, no contract wallets", () => {
    set({ SIWE_RPC_URL: "" });
    expect(getRpcUrls().size).toBe(0);
    expect(getContractWalletChainIds()).toEqual([]);
  });

  it("anything else is refused at start-up with the variable's name", () => {
    for (const bad of ["https://eth.example", "1=ftp://x", "x=https://a", "1=https://a,,2=https://b"]) {
      set({ SIWE_RPC_URL: bad });
      expect(() => getConfig(), bad).toThrow(/SIWE_RPC_URL/);
    }
  });
});
