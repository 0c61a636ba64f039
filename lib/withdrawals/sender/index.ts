import "server-only";
import type { Hex } from "viem";
import { getConfig } from "@/lib/config";
import { createEvmSender } from "./evm";
import { createSimulatedSender } from "./simulated";
import type { PayoutSender } from "./types";

let shared: PayoutSender | null = null;

/** The process's payout sender, as PAYOUT_SENDER says. */
export function getPayoutSender(): PayoutSender {
  if (shared) return shared;
  const cfg = getConfig();
  shared =
    cfg.PAYOUT_SENDER === "evm"
      ? createEvmSender({
          rpcUrl: cfg.PAYOUT_RPC_URL!,
          chainId: cfg.PAYOUT_CHAIN_ID,
          privateKey: cfg.PAYOUT_PRIVATE_KEY as Hex,
          gasMarginPercent: cfg.PAYOUT_GAS_MARGIN_PERCENT,
        })
      : createSimulatedSender(cfg.PAYOUT_CHAIN_ID);
  return shared;
}
