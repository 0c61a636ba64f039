import "server-only";
import { type Config, getConfig } from "@/lib/config";
import { payoutChain, payoutChains } from "../chains";
import { createEvmSender } from "./evm";
import { createSimulatedSender } from "./simulated";
import type { PayoutSender } from "./types";

const shared = new Map<number, PayoutSender>();
/** The settings the senders were made with (tests change them; a process never does). */
let madeWith: Config | null = null;

/** The process's payout sender of a chain (default: the first payout chain), as PAYOUT_SENDER says. */
export function getPayoutSender(chainId?: number): PayoutSender {
  const cfg = getConfig();
  if (madeWith !== cfg) {
    shared.clear();
    madeWith = cfg;
  }
  const chain = payoutChain(chainId);
  let sender = shared.get(chain.chainId);
  if (sender) return sender;
  sender =
    cfg.PAYOUT_SENDER === "evm"
      ? createEvmSender({
          rpcUrl: chain.rpcUrl!,
          chainId: chain.chainId,
          privateKey: chain.privateKey!,
          gasMarginPercent: cfg.PAYOUT_GAS_MARGIN_PERCENT,
        })
      : createSimulatedSender(chain.chainId);
  shared.set(chain.chainId, sender);
  return sender;
}

/** The senders of every payout chain, the first chain's first. */
export const getPayoutSenders = (): PayoutSender[] => payoutChains().map((c) => getPayoutSender(c.chainId));
