import "server-only";
import { getConfig } from "@/lib/config";
import { slot } from "@/lib/scope";
import { payoutChain, payoutChains } from "../chains";
import { createEvmSender } from "./evm";
import { createSimulatedSender } from "./simulated";
import type { PayoutSender } from "./types";

/** The current app's sender of each chain. */
const appSenders = slot(() => new Map<number, PayoutSender>());

/** The app's payout sender of a chain (default: the first payout chain), as PAYOUT_SENDER says. */
export function getPayoutSender(chainId?: number): PayoutSender {
  const cfg = getConfig();
  const shared = appSenders();
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
