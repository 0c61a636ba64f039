import { describe, expect, it } from "vitest";
import { openApiDocument } from "@/lib/http/openapi";
import { breakingChanges } from "../../scripts/openapi-compat";

// The breaking-change rules on the real document, changed one way at a time.

type Doc = Record<string, any>;
const base = (): Doc => structuredClone(openApiDocument()) as Doc;
const changed = (edit: (d: Doc) => void) => {
  const d = base();
  edit(d);
  return breakingChanges(base(), d);
};
const schemas = (d: Doc) => d.components.schemas;

describe("breakingChanges", () => {
  it("finds none between a document and itself", () => {
    expect(breakingChanges(base(), base())).toEqual([]);
  });

  it("a response field removed, or no longer always present, is breaking wherever the schema is used", () => {
    const removed = changed((d) => delete schemas(d).OrderStatus.properties.payoutHash);
    expect([...removed].sort()).toEqual([
      "GET /exchange/{id} 200: property payoutHash was removed",
      "POST /exchange/{id}/refund-address 200: property payoutHash was removed",
      "POST /sandbox/exchange/{id}/deposit 200: property payoutHash was removed",
    ]);
    // A webhook's payload is what the service sends, like a response.
    expect(changed((d) => delete schemas(d).OrderWebhookEvent.properties.data.properties.order.properties.payoutHash)).toEqual([
      "POST webhook order.created body.data.order: property payoutHash was removed",
      "POST webhook order.status_changed body.data.order: property payoutHash was removed",
    ]);
    const optional = changed((d) => {
      schemas(d).ExchangeOrder.required = schemas(d).ExchangeOrder.required.filter((n: string) => n !== "toAmount");
    });
    expect(optional).toContain("POST /exchange 201: property toAmount is no longer always present");
  });

  it("a response that may hold a new type or enum value is breaking; a new response field is not", () => {
    expect(
      changed((d) => (schemas(d).OrderStatus.properties.status.enum = [...schemas(d).OrderStatus.properties.status.enum, "paused"])),
    ).toContain('GET /exchange/{id} 200.status: may now be "paused"');
    expect(changed((d) => (schemas(d).Estimate.properties.rate.type = ["number", "null"]))).toContain(
      "GET /estimate 200.rate: may now be null",
    );
    expect(changed((d) => (schemas(d).OrderStatus.properties.extra = { type: "string" }))).toEqual([]);
  });

  it("a request that is refused where it was taken is breaking; one that takes more is not", () => {
    expect(changed((d) => schemas(d).CreateExchange.required.push("refundAddress"))).toContain(
      "POST /exchange body(oneOf 0): property refundAddress is now required",
    );
    expect(changed((d) => delete schemas(d).CreateExchange.properties.extraId)).toContain(
      "POST /exchange body(oneOf 0): property extraId was removed",
    );
    expect(changed((d) => (schemas(d).CreateExchange.properties.address.maxLength = 100))).toContain(
      "POST /exchange body(oneOf 0).address: maxLength is now 100 (was 256)",
    );
    expect(changed((d) => (schemas(d).CreateExchange.properties.rateType.enum = ["floating"]))).toContain(
      'POST /exchange body(oneOf 0).rateType: no longer takes "fixed"',
    );
    expect(changed((d) => (schemas(d).CreateExchange.properties.address.maxLength = 512))).toEqual([]);
    expect(
      changed((d) => (schemas(d).CreateExchange.required = schemas(d).CreateExchange.required.filter((n: string) => n !== "address"))),
    ).toEqual([]);
  });

  it("parameters, operations, paths and success responses removed are breaking; an error response removed is not", () => {
    expect(
      changed((d) => {
        d.paths["/estimate"].get.parameters = d.paths["/estimate"].get.parameters.filter((p: { name: string }) => p.name !== "amount");
      }),
    ).toContain("GET /estimate: parameter query amount was removed");
    expect(
      changed((d) => d.paths["/estimate"].get.parameters.push({ name: "x", in: "query", required: true, schema: { type: "string" } })),
    ).toContain("GET /estimate: parameter query x is new and required");
    expect(changed((d) => delete d.paths["/range"])).toEqual(["/range: removed"]);
    expect(changed((d) => delete d.paths["/exchange"].post)).toEqual(["POST /exchange: removed"]);
    expect(changed((d) => delete d.paths["/exchange/{id}"].get.responses["304"])).toEqual(["GET /exchange/{id}: response 304 was removed"]);
    expect(changed((d) => delete d.paths["/exchange"].post.responses["415"])).toEqual([]);
  });
});
