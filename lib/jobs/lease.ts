import "server-only";
import { getConfig } from "@/lib/config";
import { pooledRandomBytes } from "@/lib/ids";

// Work that several workers share (orders, withdrawals, webhook deliveries) is done under a
// lease: a token and an expiry on the row, taken by a conditional UPDATE, so one worker at a
// time works on a row, and a worker that dies loses its lease when it runs out.

/** A claim's identity: random, so only its holder can finish or release it. */
export const newLeaseToken = (): string => pooledRandomBytes(12).toString("hex");

/** How long a worker's claim on an order lasts (WORKER_LEASE_SECONDS); a worker's heartbeat goes stale on it too. */
export const leaseMs = () => getConfig().WORKER_LEASE_SECONDS * 1000;
