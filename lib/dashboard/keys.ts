import "server-only";
import type { Db } from "@/lib/db/client";
import { listApiKeys, type PublicApiKey } from "@/lib/keys/api-keys";
import type { ApiKeyRow } from "./types";

export const toKeyRow = (k: PublicApiKey): ApiKeyRow => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  createdAt: k.createdAt.toISOString(),
  lastUsedAt: k.lastUsedAt ? k.lastUsedAt.toISOString() : null,
  revokedAt: k.revokedAt ? k.revokedAt.toISOString() : null,
  markupBps: k.markupBps,
});

export async function listKeyRows(db: Db, opts: { resellerId: string; includeRevoked?: boolean }): Promise<ApiKeyRow[]> {
  return (await listApiKeys(db, opts)).map(toKeyRow);
}
