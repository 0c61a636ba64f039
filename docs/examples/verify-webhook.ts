// Receiving the exchange's webhooks in TypeScript (Node.js): verify every delivery before
// trusting it. The dashboard's Docs page shows this file; tests/webhooks/verify-example.test.ts
// runs it against signed deliveries.
//
//   npm install standardwebhooks
import type { IncomingMessage, ServerResponse } from "node:http";
import { Webhook } from "standardwebhooks";

export interface ExchangeEvent {
  type: "order.created" | "order.status_changed" | "webhook.test";
  timestamp: string;
  data: {
    orderId?: string;
    status?: string;
    previousStatus?: string;
    /** The full order status, as GET /exchange/{id} answers it. */
    order?: Record<string, unknown>;
  };
}

/**
 * The event of a delivery, or an exception when it was not signed with your secret, was
 * altered, or is too old (a replay). `rawBody` must be the body exactly as received.
 */
export function verifyDelivery(rawBody: string, headers: Record<string, string | string[] | undefined>, secret: string): ExchangeEvent {
  const wh = new Webhook(secret); // "whsec_...", from the dashboard's Webhooks page
  const h = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : (v ?? "")]));
  return wh.verify(rawBody, h) as ExchangeEvent;
}

/** A node:http handler: 204 for a verified delivery (handled once per webhook-id), 400 otherwise. */
export function webhookHandler(secret: string, onEvent: (event: ExchangeEvent, id: string) => void) {
  const seen = new Set<string>(); // use your database in production
  return (req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => {
      let event: ExchangeEvent;
      try {
        event = verifyDelivery(body, req.headers, secret);
      } catch {
        res.writeHead(400).end();
        return;
      }
      // A retry carries the same webhook-id: answer 2xx again, act once.
      const id = String(req.headers["webhook-id"]);
      if (!seen.has(id)) {
        seen.add(id);
        onEvent(event, id);
      }
      res.writeHead(204).end();
    });
  };
}
