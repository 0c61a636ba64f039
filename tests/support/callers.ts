import type { Db } from "@/lib/db/client";
import type { Caller } from "@/lib/keys/api-keys";

let n = 0;

/**
 * A reseller with this markup and one API key row, as the Caller a keyed request carries. For
 * in-process tests of the order and quote services: the key is never authenticated here.
 */
export async function newCaller(db: Db, markupBps: number): Promise<Caller> {
  const i = ++n;
  const resellerId = `caller${i}`;
  await db.reseller.create({ data: { id: resellerId, walletAddress: `0x${i.toString(16).padStart(40, "c")}`, markupBps } });
  await db.apiKey.create({ data: { id: `callerkey${i}`, resellerId, name: "k", prefix: `ck${i}`, hash: `callerhash${i}` } });
  return { apiKeyId: `callerkey${i}`, resellerId, markupBps };
}
