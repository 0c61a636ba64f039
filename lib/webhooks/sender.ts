import "server-only";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { Webhook } from "standardwebhooks";
import { getConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { releaseLease, takeLease, unleased } from "@/lib/jobs/lease";
import { getLogger } from "@/lib/log";
import { guardedLookup, privateAddressReason } from "./ssrf";

// The webhook sender, run by the workers: due deliveries are claimed (a lease, as for
// orders), signed (Standard Webhooks, with the `standardwebhooks` package) and POSTed; a
// 2xx is a success, anything else (another status, a timeout, a refused address, a
// redirect) is a failed attempt, retried on WEBHOOK_RETRY_SCHEDULE. Deliveries about one
// subject (an order) go to an endpoint one at a time, oldest first: a later one waits until
// the earlier one succeeded or failed for good, and none is sent while another of its subject
// is in flight (a resent one is older than those after it: lib/webhooks/redeliver.ts). An
// endpoint whose attempts fail WEBHOOK_DISABLE_AFTER_FAILURES times in a row is disabled,
// with the reason.

const BATCH = 20;
const MAX_ERROR = 300;
const USER_AGENT = "reseller-exchange-webhooks/1";

/** The signature header: one `v1,<base64>` per secret in use (two during a rotation's grace period). */
export function signatureHeaders(msgId: string, payload: string, at: Date, secrets: string[]): Record<string, string> {
  return {
    "webhook-id": msgId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": secrets.map((s) => new Webhook(s).sign(msgId, at, payload)).join(" "),
  };
}

/** Seconds before each retry. */
export const retrySchedule = (): number[] =>
  getConfig()
    .WEBHOOK_RETRY_SCHEDULE.split(",")
    .map((s) => Number(s.trim()));

/** POSTs a delivery; resolves with the answer's status code. Private addresses are refused unless allowed. */
export function postWebhook(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  opts: { timeoutMs: number; allowPrivate: boolean },
): Promise<number> {
  return new Promise((resolve, reject) => {
    const url = new URL(rawUrl);
    const host = url.hostname.replace(/^\[|\]$/g, "");
    // A literal IP is connected to without a lookup: judge it here.
    if (!opts.allowPrivate && net.isIP(host)) {
      const reason = privateAddressReason(host);
      if (reason) return reject(new Error(`refused: ${reason} (WEBHOOK_ALLOW_PRIVATE)`));
    }
    const lib = url.protocol === "https:" ? https : http;
    const req = lib.request(
      url,
      {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": USER_AGENT, ...headers, "content-length": Buffer.byteLength(body) },
        lookup: guardedLookup(opts.allowPrivate),
        timeout: opts.timeoutMs,
      },
      (res) => {
        res.resume(); // the answer's body is not needed
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer within ${opts.timeoutMs} ms`)));
    req.on("error", reject);
    req.end(body);
  });
}

type Claimed = NonNullable<Awaited<ReturnType<typeof loadClaimed>>>[number];

const loadClaimed = (db: Db, token: string) =>
  db.webhookDelivery.findMany({ where: { leaseToken: token }, include: { endpoint: true, message: true }, orderBy: { id: "asc" } });

/** Claims the deliveries due now that are first in line for their endpoint and subject. */
async function claimDue(db: Db, now: Date): Promise<{ token: string; deliveries: Claimed[] }> {
  const candidates = await db.webhookDelivery.findMany({
    where: { status: "pending", nextAttemptAt: { lte: now }, endpoint: { enabled: true }, ...unleased(now) },
    orderBy: { id: "asc" },
    take: BATCH * 2,
    select: { id: true, endpointId: true, orderingKey: true },
  });
  const seen = new Set<string>();
  const picked: number[] = [];
  for (const c of candidates) {
    const key = `${c.endpointId}\n${c.orderingKey}`;
    if (seen.has(key) || picked.length >= BATCH) continue;
    seen.add(key);
    // Waits behind an earlier pending delivery of its subject, and behind one being sent right
    // now: a resent delivery (lib/webhooks/redeliver.ts) can be older than one in flight.
    const earlier = await db.webhookDelivery.count({
      where: {
        endpointId: c.endpointId,
        orderingKey: c.orderingKey,
        status: "pending",
        OR: [{ id: { lt: c.id } }, { leaseUntil: { gt: now } }],
      },
    });
    if (earlier === 0) picked.push(c.id);
  }
  // Long enough for one attempt's timeout, twice over.
  const ms = getConfig().WEBHOOK_TIMEOUT_MS * 2 + 5000;
  const { token } = await takeLease(db, "webhookDelivery", { ids: picked, where: { status: "pending" }, now, ms });
  if (!picked.length) return { token, deliveries: [] };
  return { token, deliveries: await loadClaimed(db, token) };
}

/** One attempt of a claimed delivery, recorded with its outcome. */
async function attempt(db: Db, d: Claimed, token: string): Promise<boolean> {
  const cfg = getConfig();
  const at = new Date();
  const ep = d.endpoint;
  const secrets = [ep.secret, ...(ep.previousSecret && ep.previousSecretUntil && ep.previousSecretUntil > at ? [ep.previousSecret] : [])];
  const started = performance.now();
  let statusCode: number | null = null;
  let error: string | null = null;
  try {
    statusCode = await postWebhook(ep.url, d.message.payload, signatureHeaders(d.message.id, d.message.payload, at, secrets), {
      timeoutMs: cfg.WEBHOOK_TIMEOUT_MS,
      allowPrivate: cfg.WEBHOOK_ALLOW_PRIVATE,
    });
  } catch (e) {
    error = (e instanceof Error ? e.message : String(e)).slice(0, MAX_ERROR);
  }
  const latencyMs = Math.round(performance.now() - started);
  const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
  if (!ok && error === null) error = `HTTP ${statusCode}`;
  const attempts = d.attempts + 1;
  const schedule = retrySchedule();
  const next = ok || attempts > schedule.length ? null : new Date(at.getTime() + schedule[attempts - 1] * 1000);
  const status = ok ? "succeeded" : next ? "pending" : "failed";
  await db.$transaction(async (tx) => {
    const r = await releaseLease(tx, "webhookDelivery", d.id, token, {
      status,
      attempts,
      nextAttemptAt: next,
      lastAttemptAt: at,
      lastStatusCode: statusCode,
      lastError: ok ? null : error,
      lastLatencyMs: latencyMs,
    });
    if (r.count !== 1) return;
    await tx.webhookAttempt.create({ data: { deliveryId: d.id, at, statusCode, latencyMs, error: ok ? null : error } });
    if (ok) {
      await tx.webhookEndpoint.updateMany({ where: { id: ep.id, consecutiveFailures: { gt: 0 } }, data: { consecutiveFailures: 0 } });
      return;
    }
    const updated = await tx.webhookEndpoint.update({ where: { id: ep.id }, data: { consecutiveFailures: { increment: 1 } } });
    if (updated.enabled && updated.consecutiveFailures >= cfg.WEBHOOK_DISABLE_AFTER_FAILURES)
      await tx.webhookEndpoint.update({
        where: { id: ep.id },
        data: {
          enabled: false,
          disabledAt: at,
          disabledReason: `${updated.consecutiveFailures} failed attempts in a row; the last one: ${error}`.slice(0, 500),
        },
      });
  });
  if (!ok) getLogger().info({ endpointId: ep.id, deliveryId: d.id, attempts, status, error }, "webhook attempt failed");
  return ok;
}

/** One pass: claim the due deliveries and attempt them concurrently. Returns how many succeeded. */
export async function runWebhooksOnce(db: Db, now = new Date()): Promise<number> {
  const { token, deliveries } = await claimDue(db, now);
  const results = await Promise.all(
    deliveries.map((d) =>
      attempt(db, d, token).catch((e) => {
        getLogger().error({ err: e, deliveryId: d.id }, "webhook delivery step failed");
        return false;
      }),
    ),
  );
  return results.filter(Boolean).length;
}
