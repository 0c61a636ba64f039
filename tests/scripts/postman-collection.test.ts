import fs from "node:fs";
import Ajv2020 from "ajv/dist/2020";
import AjvDraft04 from "ajv-draft-04";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { buildCollection, COLLECTION_FILE, collectionText, OPENAPI_FILE } from "../../scripts/postman-collection";
import postmanSchema from "../fixtures/postman-collection-v2.1.0.schema.json";

// The Postman collection (docs/reseller-api.postman_collection.json) is made from
// docs/openapi.json by scripts/postman-collection.ts: committed as the script writes it,
// valid against Postman's own v2.1.0 schema (tests/fixtures/README.md says where it comes
// from), one request per operation of the document.

type Doc = Record<string, any>;
type Request = { name: string; request: Record<string, any> };

const openapi = (): Doc => JSON.parse(fs.readFileSync(OPENAPI_FILE, "utf8"));
const committed = (): Doc => JSON.parse(fs.readFileSync(COLLECTION_FILE, "utf8"));
const requestsOf = (collection: Doc): (Request & { folder: string })[] =>
  collection.item.flatMap((f: { name: string; item: Request[] }) => f.item.map((r) => ({ ...r, folder: f.name })));

/** Where an operation's request is: the path's segments after the base, `{id}` as `:id`. */
const segmentsOf = (path: string) => ["api", "v1", ...path.split("/").filter((s) => s !== "")].map((s) => s.replace(/^\{(.+)\}$/, ":$1"));

function validateCollection(collection: unknown) {
  const ajv = new AjvDraft04({ allErrors: true, strict: false });
  addFormats(ajv);
  const validate = ajv.compile(postmanSchema);
  return { ok: validate(collection), errors: validate.errors ?? [] };
}

describe("the Postman collection", () => {
  it("is the script's output from the committed OpenAPI document (npm run postman:collection), the same on every run", () => {
    const doc = openapi();
    expect(collectionText(doc)).toBe(collectionText(structuredClone(doc)));
    expect(fs.readFileSync(COLLECTION_FILE, "utf8")).toBe(collectionText(doc));
  });

  it("is valid against the Postman Collection v2.1.0 schema, and the schema check does refuse a broken one", () => {
    // The committed file and the script's output now (the same, by the test above; each checked in its own right).
    for (const [label, c] of [
      ["committed", committed()],
      ["script", buildCollection(openapi())],
    ] as const) {
      const { ok, errors } = validateCollection(c);
      expect(errors, label).toEqual([]);
      expect(ok, label).toBe(true);
      expect(c.info.schema, label).toBe("https://schema.getpostman.com/json/collection/v2.1.0/collection.json");
    }
    const collection = committed();
    // The check is not vacuous: a header without its value, or a collection without info, is refused.
    const broken = structuredClone(collection);
    delete broken.item[0].item[0].request.header[0].value;
    expect(validateCollection(broken).ok).toBe(false);
    expect(validateCollection({ item: collection.item }).ok).toBe(false);
  });

  it.each(["committed", "script"] as const)(
    "has one request per operation of the document (%s), each with its method, URL, variables, key header and example body",
    (label) => {
      const doc = openapi();
      const collection = label === "committed" ? committed() : buildCollection(doc);
      const requests = requestsOf(collection);
      // The document's operations, read here rather than by the script.
      const ops = Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.entries(item as Doc)
          .filter(([method]) => ["get", "put", "post", "delete", "patch", "head", "options", "trace"].includes(method))
          .map(([method, op]) => ({ path, method, op: op as Doc })),
      );
      expect(ops.length).toBeGreaterThan(5);
      expect(requests).toHaveLength(ops.length);
      expect(collection.variable).toEqual([
        { key: "baseUrl", value: "http://localhost:3000", type: "string" },
        { key: "apiKey", value: "", type: "string" },
      ]);
      // Each example body is one the API's own schema accepts (OpenAPI 3.1 schemas are JSON Schema 2020-12).
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats(ajv);
      for (const { path, method, op } of ops) {
        const what = `${method.toUpperCase()} ${path}`;
        const matches = requests.filter(
          (r) => r.request.method === method.toUpperCase() && JSON.stringify(r.request.url.path) === JSON.stringify(segmentsOf(path)),
        );
        expect(matches, what).toHaveLength(1);
        const [r] = matches;
        expect(r.name, what).toBe(op.summary ?? op.operationId);
        expect(r.request.url.raw.startsWith(`{{baseUrl}}/${segmentsOf(path).join("/")}`), what).toBe(true);
        expect(r.request.header[0], what).toMatchObject({ key: "X-API-Key", value: "{{apiKey}}" });
        const pathParams = (op.parameters ?? []).filter((p: Doc) => p.in === "path").map((p: Doc) => p.name);
        expect(
          (r.request.url.variable ?? []).map((v: Doc) => v.key),
          what,
        ).toEqual(pathParams);
        // Every query parameter is listed; on when required (or "required unless" its alias is given), off otherwise.
        for (const p of (op.parameters ?? []).filter((x: Doc) => x.in === "query")) {
          const q = r.request.url.query.find((x: Doc) => x.key === p.name);
          expect(q?.disabled ?? false, `${what} ?${p.name}`).toBe(!(p.required || /\(required unless /.test(p.description ?? "")));
        }
        if (op.description) expect(r.request.description, what).toContain(op.description);
        const schema = op.requestBody?.content?.["application/json"]?.schema;
        expect(Boolean(r.request.body), what).toBe(Boolean(schema));
        if (schema) {
          const validate = ajv.compile({ ...schema, components: doc.components });
          const body = JSON.parse(r.request.body.raw);
          expect(validate(body) ? [] : validate.errors, `${what} example body`).toEqual([]);
          // Its required fields, of the first branch when there are several (the example is the first's).
          for (const name of requiredOf(doc, schema.oneOf?.[0] ?? schema)) expect(body, `${what} example body`).toHaveProperty(name);
        }
      }
    },
  );

  it("an operation the document gains is in the collection: in its tag's folder, else its path's", () => {
    const doc = openapi();
    doc.tags = [{ name: "Webhooks", description: "Your endpoints" }];
    doc.paths["/webhooks/{endpointId}/redeliveries"] = {
      post: {
        operationId: "redeliver",
        summary: "Resend failed deliveries",
        tags: ["Webhooks"],
        parameters: [{ name: "endpointId", in: "path", required: true, schema: { type: "string" } }],
        requestBody: {
          content: {
            "application/json": {
              schema: {
                type: "object",
                properties: { from: { type: "string", format: "date-time" }, limit: { type: "integer", minimum: 1 } },
                required: ["from", "limit"],
              },
            },
          },
        },
        responses: {},
      },
    };
    doc.paths["/balances"] = { get: { operationId: "getBalances", responses: {} } };
    // A second method on a path that has one.
    doc.paths["/exchange/{id}"].delete = {
      operationId: "cancelExchange",
      parameters: doc.paths["/exchange/{id}"].get.parameters,
      responses: {},
    };
    const collection = buildCollection(doc);
    expect(validateCollection(collection).ok).toBe(true);
    const folders = collection.item.map((f: Doc) => f.name);
    expect(folders[0]).toBe("Webhooks");
    expect(folders.at(-1)).toBe("Balances");
    const added = requestsOf(collection).find((r) => r.name === "Resend failed deliveries")!;
    expect(added.folder).toBe("Webhooks");
    expect(added.request.url.raw).toBe("{{baseUrl}}/api/v1/webhooks/:endpointId/redeliveries");
    // "from" is a string here, so the pair's example ticker is its example too; the format's when no name matches.
    expect(JSON.parse(added.request.body.raw)).toEqual({ from: "btc", limit: 1 });
    const cancel = requestsOf(collection).find((r) => r.name === "cancelExchange")!;
    expect([cancel.folder, cancel.request.method, cancel.request.url.raw]).toEqual([
      "Exchange",
      "DELETE",
      "{{baseUrl}}/api/v1/exchange/:id",
    ]);
    expect(requestsOf(collection)).toHaveLength(requestsOf(buildCollection(openapi())).length + 3);
  });
});

/** The required properties of a request schema (through a $ref). */
function requiredOf(doc: Doc, schema: Doc): string[] {
  const s = schema.$ref
    ? schema.$ref
        .slice(2)
        .split("/")
        .reduce((o: Doc, k: string) => o[k], doc)
    : schema;
  return s.required ?? [];
}
