import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { newWebhookSecret } from "@/lib/webhooks/outbox";
import { signatureHeaders } from "@/lib/webhooks/sender";
import { type ExchangeEvent, verifyDelivery, webhookHandler } from "../../docs/examples/verify-webhook";

// The Docs page's TypeScript example, run against deliveries signed the way the sender signs them.

describe("docs/examples/verify-webhook.ts", () => {
  const secret = newWebhookSecret();
  const body = JSON.stringify({
    type: "order.status_changed",
    timestamp: new Date().toISOString(),
    data: { orderId: "ab", status: "sending" },
  });

  it("verifies a signed delivery and refuses an altered one or another secret", () => {
    const headers = signatureHeaders("msg_1", body, new Date(), [secret]);
    expect(verifyDelivery(body, headers, secret)).toMatchObject({ type: "order.status_changed", data: { status: "sending" } });
    expect(() => verifyDelivery(body.replace("sending", "finished"), headers, secret)).toThrow();
    expect(() => verifyDelivery(body, headers, newWebhookSecret())).toThrow();
    // During a rotation both secrets sign; each verifies on its own.
    const next = newWebhookSecret();
    const both = signatureHeaders("msg_2", body, new Date(), [next, secret]);
    expect(verifyDelivery(body, both, secret).type).toBe("order.status_changed");
    expect(verifyDelivery(body, both, next).type).toBe("order.status_changed");
    // A replay of an old delivery is refused (the timestamp is checked).
    expect(() => verifyDelivery(body, signatureHeaders("msg_3", body, new Date(Date.now() - 3600_000), [secret]), secret)).toThrow();
  });

  it("its node:http handler answers 204 once per webhook-id, 400 to a forgery", async () => {
    const events: [ExchangeEvent, string][] = [];
    const server = http.createServer(webhookHandler(secret, (e, id) => events.push([e, id])));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      const post = (b: string, headers: Record<string, string>) =>
        fetch(url, { method: "POST", body: b, headers: { "content-type": "application/json", ...headers } });
      const headers = signatureHeaders("msg_9", body, new Date(), [secret]);
      expect((await post(body, headers)).status).toBe(204);
      expect((await post(body, signatureHeaders("msg_9", body, new Date(), [secret]))).status).toBe(204);
      expect((await post(`${body} `, headers)).status).toBe(400);
      expect(events.map(([, id]) => id)).toEqual(["msg_9"]);
    } finally {
      server.close();
    }
  });
});
