"use server";

import { asResult, createApiKey, getDb, revokeApiKey, rotateApiKey, setMarkup, toKeyRow, UNAUTHORIZED } from "@/app/_server/lib";
import { getSessionReseller } from "@/app/_server/session";
import type { ActionResult, ApiKeyRow } from "@/lib/dashboard/types";

// The dashboard's writes. Each action re-checks the session (an action is a public POST
// endpoint, whatever page shows its button), passes only the session's reseller id to the
// service layer, and answers errors as data.

export interface NewKey {
  key: string;
  apiKey: ApiKeyRow;
}

const str = (v: unknown, max: number) => (typeof v === "string" && v.length <= max ? v : "");

/** Runs `fn` for the signed-in reseller, answering errors (and a missing session) as data. */
async function forReseller<T>(fn: (resellerId: string) => Promise<T>): Promise<ActionResult<T>> {
  const me = await getSessionReseller();
  if (!me) return UNAUTHORIZED;
  return asResult(() => fn(me.resellerId));
}

const newKey = (r: { key: string; apiKey: Parameters<typeof toKeyRow>[0] }): NewKey => ({ key: r.key, apiKey: toKeyRow(r.apiKey) });

export async function createKeyAction(name: unknown): Promise<ActionResult<NewKey>> {
  return forReseller(async (resellerId) => newKey(await createApiKey(getDb(), { resellerId, name: str(name, 200) })));
}

export async function rotateKeyAction(keyId: unknown): Promise<ActionResult<NewKey>> {
  return forReseller(async (resellerId) => newKey(await rotateApiKey(getDb(), { resellerId, keyId: str(keyId, 100) })));
}

export async function revokeKeyAction(keyId: unknown): Promise<ActionResult<null>> {
  return forReseller(async (resellerId) => {
    await revokeApiKey(getDb(), { resellerId, keyId: str(keyId, 100) });
    return null;
  });
}

export async function setMarkupAction(markupBps: unknown): Promise<ActionResult<{ markupBps: number }>> {
  return forReseller(async (resellerId) => {
    const r = await setMarkup(getDb(), { resellerId, markupBps: typeof markupBps === "number" ? markupBps : Number.NaN });
    return { markupBps: r.markupBps };
  });
}
