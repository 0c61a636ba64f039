import "server-only";
import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { getSandboxEngine } from "@/lib/engine";
import { AppError } from "@/lib/errors";
import { getOrderForCaller } from "@/lib/orders/get-order";
import { reportSandboxDeposit } from "@/lib/orders/report-deposit";
import { serializeOrderStatus } from "@/lib/orders/serialize-order";
import type { ApiRequest } from "../request";
import { readJsonBody } from "../respond";
import { parseWith, type RouteHandler } from "../route";
import { sandboxDepositBody, sandboxEngineBody } from "../schemas";

/** An empty body is fine for the deposit: it means "the quoted amount arrived". */
async function optionalBody(req: ApiRequest): Promise<unknown> {
  if (!req.hasBody) return {};
  try {
    return await readJsonBody(req, getConfig().MAX_BODY_BYTES);
  } catch (e) {
    if (e instanceof AppError && e.code === "INVALID_REQUEST") return {};
    throw e;
  }
}

export const postSandboxDeposit: RouteHandler = async ({ req, env, caller }) => {
  const body = parseWith(sandboxDepositBody, await optionalBody(req));
  const order = await reportSandboxDeposit(getDb(), { orderId: env.params.id ?? "", caller, amount: body.amount });
  return { body: serializeOrderStatus(order, order.events) };
};

/** What this process's simulated engine was asked about one of the caller's orders. */
export const getSandboxEngineCalls: RouteHandler = async ({ env, caller }) => {
  const engine = getSandboxEngine();
  if (!engine) throw new AppError("NOT_FOUND", "The sandbox is disabled on this server.");
  const order = await getOrderForCaller(getDb(), { orderId: env.params.id ?? "", caller });
  return { body: { orderId: order.id, calls: engine.callsFor(order.id) } };
};

/**
 * The engine fault switch, for keyed callers only: it applies to their reseller's requests
 * and orders. A keyless switch would be keyed by client IP, shared by everyone behind one proxy.
 */
export const postSandboxEngine: RouteHandler = async ({ req, caller, scope }) => {
  const engine = getSandboxEngine();
  if (!engine) throw new AppError("NOT_FOUND", "The sandbox is disabled on this server.");
  if (!caller)
    throw new AppError("API_KEY_REQUIRED", "The engine fault switch needs an API key (X-API-Key); it applies to your reseller only.");
  const body = parseWith(sandboxEngineBody, await readJsonBody(req, getConfig().MAX_BODY_BYTES));
  if (body.fault !== undefined) engine.setFault(scope, body.fault);
  if (body.rateMoveBps !== undefined) engine.setRateMove(scope, body.rateMoveBps);
  const move = engine.getRateMove(scope);
  // rateMoveBps (an extension) is answered once it was asked for or is in effect.
  return { body: { fault: engine.getFault(scope), ...(body.rateMoveBps !== undefined || move ? { rateMoveBps: move } : {}) } };
};
