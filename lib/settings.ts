import { z } from "zod";

// The value types settings are written in, shared by lib/config.ts and the providers'
// definitions (lib/providers), whose settings are part of the one config.

/** true/false, 1/0 or yes/no. */
export const bool = z.enum(["true", "false", "1", "0", "yes", "no"]).transform((v) => v === "true" || v === "1" || v === "yes");

/** A whole number of at least `min`, `def` when unset. */
export const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);
