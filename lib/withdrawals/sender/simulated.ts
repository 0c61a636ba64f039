import "server-only";
import { type Address, type Hex, keccak256, stringToHex } from "viem";
import type { PayoutReceipt, PayoutSender, PayoutTransfer } from "./types";

// The default sender: a pretend chain with an inexhaustible hot wallet, so `npm start` needs
// no node. Nothing is paid. A "transaction" is mined the moment it is broadcast; a fresh
// instance (a restart) knows nothing until the processor rebroadcasts what it persisted,
// which is exactly the path a real restart takes.

export const SIMULATED_HOT_WALLET: Address = "0x000000000000000000000000000000000000dEaD";

export function createSimulatedSender(chainId: number): PayoutSender {
  const mined = new Map<Hex, PayoutReceipt>();
  let block = 1n;
  return {
    kind: "simulated",
    chainId,
    address: SIMULATED_HOT_WALLET,
    shortfall: async () => null,
    gasLimit: async (p) => (p.token ? 65_000n : 21_000n),
    fees: async () => ({ maxFeePerGas: 0n, maxPriorityFeePerGas: 0n }),
    balance: async () => 2n ** 128n,
    pendingNonce: async () => 0,
    minedNonce: async () => 0,
    async sign(t: PayoutTransfer) {
      const raw = stringToHex(JSON.stringify({ chainId, to: t.to, token: t.token, amount: t.amount.toString(), nonce: t.nonce }));
      return { raw, hash: keccak256(raw) };
    },
    async broadcast(raw: Hex) {
      const hash = keccak256(raw);
      if (!mined.has(hash)) {
        const n = block++;
        // Nothing is paid: the network fee is 0.
        mined.set(hash, { status: "success", blockNumber: n, blockHash: keccak256(stringToHex(`block ${n}`)), fee: 0n });
      }
      return "accepted" as const;
    },
    receipt: async (hash) => mined.get(hash) ?? null,
    blockNumber: async () => block,
    blockHashAt: async (n) => (n < block ? keccak256(stringToHex(`block ${n}`)) : null),
  };
}
