import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DASHBOARD_ONLY_CODES, ERROR_CODES } from "@/lib/errors";
import { requestSchema } from "@/lib/http/openapi";
import { createExchangeBody, refundAddressBody } from "@/lib/http/schemas";
import { api } from "../support/api";

describe("GET /api/v1/openapi.json", () => {
  it("is an OpenAPI 3.1 document of every v1 route, built from the request schemas", async () => {
    const r = await api("/openapi.json");
    expect(r.status).toBe(200);
    const doc = r.body;
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        "/currencies",
        "/estimate",
        "/exchange",
        "/exchange/{id}",
        "/exchange/{id}/events",
        "/exchange/{id}/refund-address",
        "/range",
        "/sandbox/engine",
        "/sandbox/exchange/{id}/deposit",
        "/sandbox/exchange/{id}/engine-calls",
      ].sort(),
    );
    // The body schema in the document is the very zod schema that validates POST /exchange (its input side)...
    expect(doc.components.schemas.CreateExchange).toEqual(requestSchema(createExchangeBody));
    const { $schema: _, ...fromZod } = z.toJSONSchema(createExchangeBody, { io: "input", unrepresentable: "any" }) as Record<string, any>;
    expect(Object.keys(doc.components.schemas.CreateExchange.properties)).toEqual(Object.keys(fromZod.properties));
    // ...without `default`, which code generators read as "always present" (openapi-typescript's
    // default flags made rateType a required member of the body): the default is in the description.
    expect(fromZod.properties.rateType.default).toBe("floating");
    expect(doc.components.schemas.CreateExchange.properties.rateType).toEqual({
      ...fromZod.properties.rateType,
      default: undefined,
      description: `${fromZod.properties.rateType.description} (default: floating)`,
    });
    for (const name of ["CreateExchange", "CreateExchangeByToAmount", "SandboxDeposit", "SandboxEngine", "RefundAddress"])
      expect(JSON.stringify(doc.components.schemas[name]), name).not.toContain('"default"');
    expect(JSON.stringify(doc.paths), "a default in a parameter").not.toContain('"default"');
    expect(doc.components.schemas.CreateExchange.required.sort()).toEqual(["address", "amount", "from", "to"]);
    // A JSON number is read losslessly (a LosslessNumber in zod), and documented as a number.
    expect(doc.components.schemas.CreateExchange.properties.amount.anyOf).toEqual([{ type: "string", maxLength: 64 }, { type: "number" }]);
    expect(doc.paths["/exchange"].post.responses["201"]).toBeDefined();
    // The live status stream is documented as such, with its events' data.
    expect(Object.keys(doc.paths["/exchange/{id}/events"].get.responses["200"].content)).toEqual(["text/event-stream"]);
    expect(doc.components.schemas.OrderStatusEvent.required.sort()).toEqual(["at", "id", "status"]);
    expect(doc.components.schemas.OrderStreamEnd.properties.status.enum).toEqual(["finished", "failed"]);
    // Both query spellings of /estimate are documented.
    const names = doc.paths["/estimate"].get.parameters.map((p: { name: string }) => p.name).sort();
    expect(names).toEqual(["amount", "from", "fromAmount", "fromCurrency", "rateType", "to", "toAmount", "toCurrency"]);
    // Every public error code is named in some documented response.
    const text = JSON.stringify(doc.paths);
    for (const code of ERROR_CODES.filter((c) => !DASHBOARD_ONLY_CODES.includes(c))) expect(text).toContain(code);
    // Every $ref resolves.
    for (const m of JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/(\w+)\/(\w+)"/g))
      expect(doc.components[m[1]][m[2]], m[0]).toBeDefined();
  });

  it("validates against the OpenAPI 3.1 schema (a validator library)", async () => {
    const doc = (await api("/openapi.json")).body;
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    // The validator does catch a broken document: a parameter "in" the body (OpenAPI 2's form).
    const broken = structuredClone(doc);
    broken.paths["/range"].get.parameters[0].in = "body";
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it("covers the extensions: /range, ETag and Poll-After on the status", async () => {
    const doc = (await api("/openapi.json")).body;
    expect(doc.paths["/range"].get.responses["200"].content["application/json"].schema.$ref).toBe("#/components/schemas/Range");
    expect(Object.keys(doc.components.schemas.Range.properties).sort()).toEqual(
      ["fromCurrency", "maxAmount", "minAmount", "rateType", "toCurrency"].sort(),
    );
    const status = doc.paths["/exchange/{id}"].get;
    expect(status.parameters.map((p: { name: string }) => p.name)).toContain("If-None-Match");
    expect(Object.keys(status.responses["200"].headers)).toEqual(expect.arrayContaining(["ETag", "Poll-After"]));
    expect(status.responses["304"]).toBeDefined();
    // Webhooks (OpenAPI 3.1's webhooks section).
    expect(Object.keys(doc.webhooks).sort()).toEqual([
      "order.action_required",
      "order.created",
      "order.status_changed",
      "webhook.test",
      "withdrawal.created",
      "withdrawal.status_changed",
    ]);
    const hook = doc.webhooks["order.status_changed"].post;
    expect(hook.parameters.map((p: { name: string }) => p.name)).toEqual(["webhook-id", "webhook-timestamp", "webhook-signature"]);
    expect(doc.components.schemas.OrderWebhookEvent.properties.data.properties.order.properties).toHaveProperty("history");
    // What the user must do (issue 51): in the status body, its own event, and the request that answers it.
    expect(doc.components.schemas.OrderStatus.properties.requiredAction.anyOf).toEqual([
      { type: "string", enum: ["provide_refund_address", "contact_support", "wait_for_review"] },
      { type: "null" },
    ]);
    expect(doc.components.schemas.OrderActionWebhookEvent.properties.type.const).toBe("order.action_required");
    const { $schema: _s, ...refundBody } = z.toJSONSchema(refundAddressBody, { io: "input", unrepresentable: "any" }) as Record<
      string,
      unknown
    >;
    expect(doc.components.schemas.RefundAddress).toEqual(refundBody);
    expect(doc.paths["/exchange/{id}/refund-address"].post.responses["409"].description).toMatch(
      /REFUND_ADDRESS_LOCKED, REFUND_ADDRESS_UNSUPPORTED/,
    );
    // Fixed-rate and reverse quotes.
    expect(doc.components.schemas.Estimate.properties).toHaveProperty("rateId");
    expect(doc.components.schemas.Estimate.properties.rateType.enum).toEqual(["floating", "fixed"]);
    expect(doc.components.schemas.CreateExchange.properties).toHaveProperty("rateId");
    expect(doc.components.schemas.CreateExchangeByToAmount.required.sort()).toEqual(["address", "from", "rateType", "to", "toAmount"]);
    const oneOf = doc.paths["/exchange"].post.requestBody.content["application/json"].schema.oneOf.map((r: { $ref: string }) => r.$ref);
    expect(oneOf).toEqual(["#/components/schemas/CreateExchange", "#/components/schemas/CreateExchangeByToAmount"]);
    const reasons = JSON.stringify(doc.components.schemas.OrderStatus.properties.failureReason);
    for (const r of ["deposit_late", "deposit_amount_mismatch"]) expect(reasons).toContain(r);
  });

  it("is also served under the /v1 alias", async () => {
    expect((await api("/openapi.json", { prefix: "/v1" })).body.openapi).toBe("3.1.0");
  });
});
