import crypto from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { signatureHeaders } from "@/lib/webhooks/sender";
import { verifyWebhook, WebhookVerificationError } from "@/packages/client/src/webhooks";

// The client's webhook verifier against the server's own signer (lib/webhooks/sender.ts) and the
// standardwebhooks package: the same deliveries pass, any change to them fails.

const newSecret = () => `whsec_${crypto.randomBytes(24).toString("base64")}`;
const payload = JSON.stringify({
  type: "webhook.test",
  timestamp: "2026-01-01T00:00:00.000Z",
  data: { endpointId: "e1", message: "héllo" },
});
const at = new Date("2026-01-01T00:00:00Z");
const now = at.getTime() + 30_000;

const rejects = (p: Promise<unknown>) => expect(p).rejects.toBeInstanceOf(WebhookVerificationError);

describe("verifyWebhook", () => {
  it("accepts what the server signs, with one secret or two (a rotation), from a Headers or a Node headers object", async () => {
    const [current, previous] = [newSecret(), newSecret()];
    const h = signatureHeaders("msg_1", payload, at, [current, previous]);
    expect(h["webhook-signature"].split(" ")).toHaveLength(2);
    for (const secret of [current, previous]) {
      expect(await verifyWebhook(secret, h, payload, { now })).toEqual(JSON.parse(payload));
      expect(await verifyWebhook(secret, new Headers(h), new TextEncoder().encode(payload), { now })).toEqual(JSON.parse(payload));
    }
    // A Node IncomingMessage's headers: lower-case names, maybe arrays.
    expect(await verifyWebhook(current, { ...h, "webhook-signature": [h["webhook-signature"]] }, payload, { now })).toBeTruthy();
    await rejects(verifyWebhook(newSecret(), h, payload, { now }));
  });

  it("accepts what the standardwebhooks package signs, and refuses what it refuses", async () => {
    const secret = newSecret();
    const wh = new Webhook(secret);
    const headers = {
      "webhook-id": "msg_2",
      "webhook-timestamp": String(at.getTime() / 1000),
      "webhook-signature": wh.sign("msg_2", at, payload),
    };
    expect(await verifyWebhook(secret, headers, payload, { now })).toEqual(JSON.parse(payload));
    // The same secret without its prefix (the package takes both).
    expect(await verifyWebhook(secret.slice("whsec_".length), headers, payload, { now })).toBeTruthy();
    const tampered = [
      { ...headers, "webhook-id": "msg_3" },
      { ...headers, "webhook-timestamp": String(at.getTime() / 1000 + 1) },
      {
        ...headers,
        "webhook-signature": `v1,${headers["webhook-signature"][3] === "A" ? "B" : "A"}${headers["webhook-signature"].slice(4)}`,
      },
      { ...headers, "webhook-signature": headers["webhook-signature"].replace(/^v1,/, "v2,") },
    ];
    for (const h of tampered) await rejects(verifyWebhook(secret, h, payload, { now }));
    await rejects(verifyWebhook(secret, headers, `${payload} `, { now }));
    await rejects(verifyWebhook(secret, headers, payload.replace("héllo", "hello"), { now }));
  });

  it("finds the matching signature among several, whatever its place", async () => {
    const secret = newSecret();
    const good = signatureHeaders("msg_4", payload, at, [secret]);
    const other = signatureHeaders("msg_4", payload, at, [newSecret()])["webhook-signature"];
    for (const sig of [
      `${other} ${good["webhook-signature"]}`,
      `${good["webhook-signature"]} ${other}`,
      `v1a,xyz ${good["webhook-signature"]}`,
    ])
      expect(await verifyWebhook(secret, { ...good, "webhook-signature": sig }, payload, { now })).toBeTruthy();
    await rejects(verifyWebhook(secret, { ...good, "webhook-signature": `${other} v1,not-base64!` }, payload, { now }));
  });

  it("refuses a timestamp outside the tolerance, either way, and missing headers", async () => {
    const secret = newSecret();
    const h = signatureHeaders("msg_5", payload, at, [secret]);
    expect(await verifyWebhook(secret, h, payload, { now: at.getTime() + 300_000 })).toBeTruthy();
    await rejects(verifyWebhook(secret, h, payload, { now: at.getTime() + 301_000 }));
    await rejects(verifyWebhook(secret, h, payload, { now: at.getTime() - 301_000 }));
    expect(await verifyWebhook(secret, h, payload, { now: at.getTime() + 3_600_000, toleranceSeconds: 3600 })).toBeTruthy();
    for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) {
      const { [name]: _gone, ...rest } = h;
      await rejects(verifyWebhook(secret, rest, payload, { now }));
    }
    await rejects(verifyWebhook(secret, { ...h, "webhook-timestamp": "1e9" }, payload, { now }));
  });
});
