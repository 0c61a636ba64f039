import type { Random } from "./util";

export type ValidationLevel = "checksum" | "checksum-if-mixed-case" | "format";

export interface AddressFamily {
  /** Family key stored on each currency, e.g. "utxo:btc". */
  key: string;
  level: ValidationLevel;
  /** What is accepted, in one line (shown by the registry report). */
  accepts: string;
  /** Pure, synchronous, never throws. */
  validate(address: string): boolean;
  /**
   * Why a rejected address is rejected, when there is something more useful to say than "not
   * valid" (e.g. an Ethereum address pasted for Starknet). Null otherwise. Never throws.
   */
  rejectionReason?(address: string): string | null;
  /** A random valid mainnet address of this family. */
  generate(random: Random): string;
}
