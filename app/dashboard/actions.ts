"use server";

import { createApiKey, endAllSessions, getDb, revokeApiKey, rotateApiKey, setMarkup, toKeyRow } from "@/app/_server/lib";
import { forSessionReseller } from "@/app/_server/session";
import type { ActionResult, ApiKeyRow } from "@/lib/dashboard/types";

// The dashboard's writes. Each action re-checks the session (an action is a public POST
// endpoint, whatever page shows its button), passes only the session's reseller id to the
// service layer, and answers errors as data. The reads are in queries.ts.

export interface NewKey {
  key: string;
  apiKey: ApiKeyRow;
}

const str = (v: unknown, max: number) => (typeof v === "string" && v.length <= max ? v : "");

const newKey = (r: { key: string; apiKey: Parameters<typeof toKeyRow>[0] }): NewKey => ({ key: r.key, apiKey: toKeyRow(r.apiKey) });

export async function createKeyAction(name: unknown): Promise<ActionResult<NewKey>> {
  return forSessionReseller(async ({ resellerId }) => newKey(await createApiKey(getDb(), { resellerId, name: str(name, 200) })));
}

export async function rotateKeyAction(keyId: unknown): Promise<ActionResult<NewKey>> {
  return forSessionReseller(async ({ resellerId }) => newKey(await rotateApiKey(getDb(), { resellerId, keyId: str(keyId, 100) })));
}

export async function revokeKeyAction(keyId: unknown): Promise<ActionResult<null>> {
  return forSessionReseller(async ({ resellerId }) => {
    await revokeApiKey(getDb(), { resellerId, keyId: str(keyId, 100) });
    return null;
  });
}

export async function setMarkupAction(markupBps: unknown): Promise<ActionResult<{ markupBps: number }>> {
  return forSessionReseller(async ({ resellerId }) => {
    const r = await setMarkup(getDb(), { resellerId, markupBps: typeof markupBps === "number" ? markupBps : Number.NaN });
    return { markupBps: r.markupBps };
  });
}

/** Ends every session of this wallet, on every device, this one included. */
export async function signOutEverywhereAction(): Promise<ActionResult<null>> {
  return forSessionReseller(async ({ resellerId }) => {
    await endAllSessions(getDb(), { resellerId });
    return null;
  });
}
