import "server-only";
import crypto from "node:crypto";

/**
 * A random id made once, when this module is loaded: one per copy of lib/ in the process.
 * /healthz reports it (which instance answered, behind a load balancer) and the dashboard
 * sends it as the Service-Instance header and in its pages; tests/http/one-instance.test.ts
 * compares them to prove the v1 API and the dashboard run on the same copy of lib/.
 */
export const SERVICE_INSTANCE_ID = crypto.randomBytes(8).toString("hex");
