import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A webhook receiver in the test process: every delivery kept with its headers and the status
 * it was answered (`status`, 200 unless a test sets another).
 * (tests/http/webhooks.test.ts has its own, which also answers with chosen statuses.)
 */
export class WebhookReceiver {
  server!: http.Server;
  url = "";
  received: { id: string; body: string; headers: Record<string, string>; answered: number }[] = [];
  /** What the next deliveries are answered. */
  status = 200;

  async start() {
    this.server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
        const answered = this.status;
        this.received.push({ id: headers["webhook-id"], body, headers, answered });
        res.writeHead(answered).end();
      });
    });
    // Idle kept-alive connections stay open (the sender's agent reuses them) until stop(): closed
    // after Node's 5 s, a delivery sent on one just as it closed failed with ECONNRESET, which
    // on a loaded machine, with seconds between a test's passes, happened.
    this.server.keepAliveTimeout = 0;
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  stop = () =>
    new Promise<void>((resolve) => {
      if (!this.server?.listening) return resolve();
      this.server.close(() => resolve());
      // The idle kept-alive connections too, which close() leaves open.
      this.server.closeIdleConnections();
    });

  /** The deliveries of one event type for one order, each with its parsed event. */
  events = (orderId: string, type: string) =>
    this.received
      .map((r) => ({ ...r, event: JSON.parse(r.body) }))
      .filter((r) => r.event.type === type && r.event.data.orderId === orderId);
}
