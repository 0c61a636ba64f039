import "server-only";
import type { Db } from "@/lib/db/client";
import { writeTransaction } from "@/lib/db/write-transaction";
import { forgetProviderSwitches } from "@/lib/engine/switches";
import { AppError } from "@/lib/errors";
import { type Actor, recordAudit } from "@/lib/operators/audit";
import { PROVIDER_NAMES } from "@/lib/providers/registry";

// An operator's run-time switch of a provider (issue 52): written here with its audit row; read
// by every instance's engine within PROVIDER_SWITCH_SECONDS (lib/engine/switches.ts).

/** Switches a provider on or off for every instance (within PROVIDER_SWITCH_SECONDS), recorded in the audit log. */
export async function setProviderSwitch(
  db: Db,
  opts: { provider: string; enabled: boolean; by: Actor; reason: string; now?: Date },
): Promise<{ provider: string; enabled: boolean; changed: boolean }> {
  if (!(PROVIDER_NAMES as readonly string[]).includes(opts.provider)) throw new AppError("NOT_FOUND", `No provider ${opts.provider}.`);
  const now = opts.now ?? new Date();
  const changed = await writeTransaction(db, async (tx) => {
    const before = await tx.providerSwitch.findUnique({ where: { provider: opts.provider } });
    if (before?.enabled === opts.enabled) return false;
    await tx.providerSwitch.upsert({
      where: { provider: opts.provider },
      create: { provider: opts.provider, enabled: opts.enabled, updatedAt: now, updatedBy: opts.by.actor },
      update: { enabled: opts.enabled, updatedAt: now, updatedBy: opts.by.actor },
    });
    await recordAudit(tx, opts.by, {
      action: opts.enabled ? "provider.enable" : "provider.disable",
      targetType: "provider",
      targetId: opts.provider,
      before: { enabled: before ? before.enabled : null },
      after: { enabled: opts.enabled },
      reason: opts.reason,
      at: now,
    });
    return true;
  });
  // This instance applies it at once; the others within PROVIDER_SWITCH_SECONDS.
  forgetProviderSwitches();
  return { provider: opts.provider, enabled: opts.enabled, changed };
}
