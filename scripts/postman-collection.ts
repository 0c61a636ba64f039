// Writes the v1 API's Postman collection (Postman Collection Format v2.1.0) from its OpenAPI
// document: `npm run postman:collection` reads docs/openapi.json and writes
// docs/reseller-api.postman_collection.json. Run it after `npm run openapi:snapshot`;
// tests/scripts/postman-collection.test.ts fails while the committed collection is stale.
//
// What it makes, and nothing else (the output is a function of the document alone: no ids, no
// dates, the document's own order, so the same document gives the same bytes):
//  - one folder per tag, in the order of the document's `tags` list, then of first use; an
//    operation without a tag goes in the folder of its path's first segment ("/exchange/{id}":
//    "Exchange"), and one with several tags in its first one's;
//  - one request per operation: its method; the URL {{baseUrl}} + the first server's path
//    (/api/v1) + the operation's path, with `{id}` as the Postman path variable `:id`; the
//    header X-API-Key: {{apiKey}}; the operation's query and header parameters, on when
//    required (or, the document's convention for aliases, "required unless ..."), listed off
//    otherwise; a JSON body built from the request schema (its required fields, with an
//    example value each); the operation's summary, description and parameters' descriptions;
//  - collection variables baseUrl (http://localhost:3000) and apiKey (empty: paste a key).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** A JSON value of the OpenAPI document or of the collection. */
type Doc = Record<string, any>;

const SCHEMA_URL = "https://schema.getpostman.com/json/collection/v2.1.0/collection.json";
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/**
 * Example values by field name, for the names this API uses: the pair BTC to ETH, amounts,
 * addresses that the registry accepts (an EIP-55 address for ETH, a bech32 one for BTC, each a
 * published test vector), a Postman dynamic variable for Idempotency-Key. Used only where the
 * field's schema takes a string.
 */
const NAMED_EXAMPLES: Record<string, string> = {
  from: "btc",
  fromCurrency: "btc",
  to: "eth",
  toCurrency: "eth",
  amount: "0.1",
  fromAmount: "0.1",
  toAmount: "1.5",
  address: "0x52908400098527886E0F7030069857D2E4169EE7",
  refundAddress: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4",
  "Idempotency-Key": "{{$guid}}",
};

/** The schema `ref` points at, in `doc` (local references only). */
function resolve(doc: Doc, schema: Doc, seen = new Set<string>()): Doc {
  let s: Doc | undefined = schema;
  while (s && typeof s.$ref === "string") {
    if (seen.has(s.$ref)) return {};
    seen.add(s.$ref);
    if (!s.$ref.startsWith("#/")) return {};
    s = s.$ref
      .slice(2)
      .split("/")
      .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce<Doc | undefined>((o, k) => (o == null ? undefined : o[k]), doc);
  }
  return s ?? {};
}

const takesString = (doc: Doc, schema: Doc): boolean => {
  const s = resolve(doc, schema);
  if (s.type === "string" || (Array.isArray(s.type) && s.type.includes("string"))) return true;
  return [...(s.anyOf ?? []), ...(s.oneOf ?? [])].some((b) => takesString(doc, b));
};

/** A string for a schema of type string: its format's, or one that fits a simple pattern. */
function exampleString(s: Doc): string {
  if (s.format === "date-time") return "2026-01-01T00:00:00Z";
  if (s.format === "date") return "2026-01-01";
  if (s.format === "uri" || s.format === "url") return "https://example.com/";
  if (s.format === "email") return "user@example.com";
  if (s.format === "uuid") return "00000000-0000-4000-8000-000000000000";
  // ^[0-9a-f]{24}$ and the like: that many characters of the class.
  const m = typeof s.pattern === "string" ? /^\^\[([^\]]+)\]\{(\d+)\}\$$/.exec(s.pattern) : null;
  if (m) {
    const chars = [...m[1].replace(/(.)-(.)/g, (_, a: string, b: string) => rangeChars(a, b))];
    return Array.from({ length: Number(m[2]) }, (_, i) => chars[i % chars.length]).join("");
  }
  const text = "string";
  return s.minLength > text.length ? text.padEnd(s.minLength, "x") : text;
}

function rangeChars(a: string, b: string): string {
  let out = "";
  for (let c = a.charCodeAt(0); c <= b.charCodeAt(0); c++) out += String.fromCharCode(c);
  return out;
}

/**
 * An example value of `schema`: its own example or default, its const or first enum value,
 * its first branch (oneOf, anyOf), the merged branches of allOf; an object's required
 * properties; an array of one item when it needs one; else a value of its type. `name` is the
 * field's name, for NAMED_EXAMPLES.
 */
export function exampleOf(doc: Doc, schema: Doc, name: string | null = null, depth = 0): unknown {
  const s = resolve(doc, schema);
  if (depth > 8) return null;
  if (name !== null && Object.hasOwn(NAMED_EXAMPLES, name) && takesString(doc, s)) return NAMED_EXAMPLES[name];
  if (s.example !== undefined) return s.example;
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum) && s.enum.length) return s.default !== undefined && s.enum.includes(s.default) ? s.default : s.enum[0];
  if (s.default !== undefined) return s.default;
  const branches = s.oneOf ?? s.anyOf;
  if (Array.isArray(branches) && branches.length) {
    // The first branch that is not null, with the siblings' own keywords (a description) dropped.
    const branch = branches.find((b: Doc) => resolve(doc, b).type !== "null") ?? branches[0];
    return exampleOf(doc, branch, name, depth + 1);
  }
  if (Array.isArray(s.allOf) && s.allOf.length) {
    const parts = s.allOf.map((b: Doc) => exampleOf(doc, b, name, depth + 1));
    return parts.every((p) => p && typeof p === "object" && !Array.isArray(p)) ? Object.assign({}, ...parts) : parts[0];
  }
  const type = Array.isArray(s.type) ? (s.type.find((t: string) => t !== "null") ?? s.type[0]) : s.type;
  if (type === "object" || (type === undefined && s.properties)) {
    const out: Record<string, unknown> = {};
    const props = s.properties ?? {};
    for (const key of s.required ?? []) out[key] = exampleOf(doc, props[key] ?? {}, key, depth + 1);
    return out;
  }
  if (type === "array") return (s.minItems ?? 0) > 0 ? [exampleOf(doc, s.items ?? {}, null, depth + 1)] : [];
  if (type === "string") return exampleString(s);
  if (type === "integer") return s.minimum ?? 0;
  if (type === "number") return s.minimum ?? 0;
  if (type === "boolean") return false;
  if (type === "null") return null;
  return null;
}

/** A parameter is on in the request when it is required, or "required unless" its alias is given (the document's words). */
const parameterOn = (p: Doc): boolean => p.required === true || /\(required unless /.test(p.description ?? "");

/** A parameter's example value, as the text Postman sends. */
function parameterValue(doc: Doc, p: Doc): string {
  const v = exampleOf(doc, p.schema ?? {}, p.name);
  return typeof v === "string" ? v : JSON.stringify(v);
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The folder of an operation: its first tag, else its path's first segment. */
function folderOf(pathName: string, op: Doc): string {
  if (Array.isArray(op.tags) && op.tags.length) return op.tags[0];
  const first = pathName.split("/").find((seg) => seg !== "") ?? "api";
  return capitalised(first.replace(/[{}]/g, ""));
}

/** The operations of the document, in its order: [path, method, operation, the path item's parameters]. */
export interface Operation {
  path: string;
  method: string;
  op: Doc;
  /** The path item's own parameters. */
  shared: Doc[];
}

export function operationsOf(doc: Doc): Operation[] {
  const out: Operation[] = [];
  for (const [pathName, item] of Object.entries(doc.paths ?? {}))
    for (const method of Object.keys(item as Doc))
      if (METHODS.includes(method)) out.push({ path: pathName, method, op: (item as Doc)[method], shared: (item as Doc).parameters ?? [] });
  return out;
}

function request(doc: Doc, base: string, { path: pathName, method, op, shared }: Operation): Doc {
  // Operation parameters override the path item's of the same name and place.
  const byKey = new Map<string, Doc>();
  for (const p0 of [...shared, ...(op.parameters ?? [])]) {
    const p = resolve(doc, p0);
    byKey.set(`${p.in}:${p.name}`, p);
  }
  const params = [...byKey.values()];
  const segments = [...base.split("/"), ...pathName.split("/")].filter((seg) => seg !== "").map((seg) => seg.replace(/^\{(.+)\}$/, ":$1"));
  const query = params
    .filter((p) => p.in === "query")
    .map((p) => ({
      key: p.name,
      value: parameterValue(doc, p),
      ...(p.description ? { description: p.description } : {}),
      ...(parameterOn(p) ? {} : { disabled: true }),
    }));
  const variable = params
    .filter((p) => p.in === "path")
    .map((p) => ({ key: p.name, value: parameterValue(doc, p), ...(p.description ? { description: p.description } : {}) }));
  const header: Doc[] = [
    { key: "X-API-Key", value: "{{apiKey}}", type: "text", description: "Your API key; leave apiKey empty for the keyless tier" },
  ];
  const json = op.requestBody ? resolve(doc, op.requestBody).content?.["application/json"] : undefined;
  if (json) header.push({ key: "Content-Type", value: "application/json", type: "text" });
  for (const p of params.filter((x) => x.in === "header"))
    header.push({
      key: p.name,
      value: parameterValue(doc, p),
      type: "text",
      ...(p.description ? { description: p.description } : {}),
      ...(parameterOn(p) ? {} : { disabled: true }),
    });
  const queryText = query.filter((q) => !q.disabled).map((q) => `${q.key}=${q.value}`);
  const url = {
    raw: `{{baseUrl}}/${segments.join("/")}${queryText.length ? `?${queryText.join("&")}` : ""}`,
    host: ["{{baseUrl}}"],
    path: segments,
    ...(query.length ? { query } : {}),
    ...(variable.length ? { variable } : {}),
  };
  const description = [op.summary, op.description].filter(Boolean).join("\n\n");
  return {
    name: op.summary ?? op.operationId ?? `${method.toUpperCase()} ${pathName}`,
    request: {
      method: method.toUpperCase(),
      header,
      ...(json
        ? { body: { mode: "raw", raw: JSON.stringify(exampleOf(doc, json.schema ?? {}), null, 2), options: { raw: { language: "json" } } } }
        : {}),
      url,
      ...(description ? { description } : {}),
    },
    response: [],
  };
}

/** The Postman collection (v2.1.0) of an OpenAPI 3 document: a plain value, the same for the same document. */
export function buildCollection(doc: Doc): Doc {
  const server = doc.servers?.[0]?.url ?? "/api/v1";
  // A relative server URL is the API's prefix; an absolute one's path is.
  const base = /^[a-z]+:\/\//i.test(server) ? new URL(server).pathname : server;
  const folders = new Map<string, { description: string | undefined; items: Doc[] }>();
  for (const t of doc.tags ?? []) folders.set(t.name, { description: t.description, items: [] });
  for (const o of operationsOf(doc)) {
    const name = folderOf(o.path, o.op);
    if (!folders.has(name)) folders.set(name, { description: undefined, items: [] });
    folders.get(name)?.items.push(request(doc, base, o));
  }
  const info = doc.info ?? {};
  return {
    info: {
      name: info.title ?? "API",
      description: [
        info.description,
        "Made from docs/openapi.json by scripts/postman-collection.ts (npm run postman:collection). Set the collection variables baseUrl (the server) and apiKey (an API key from the dashboard; empty: the keyless tier).",
      ]
        .filter(Boolean)
        .join("\n\n"),
      version: info.version ?? "1.0.0",
      schema: SCHEMA_URL,
    },
    item: [...folders]
      .filter(([, f]) => f.items.length)
      .map(([name, f]) => ({ name, ...(f.description ? { description: f.description } : {}), item: f.items })),
    variable: [
      { key: "baseUrl", value: "http://localhost:3000", type: "string" },
      { key: "apiKey", value: "", type: "string" },
    ],
  };
}

/** The collection's file text: two-space JSON and a newline, as docs/openapi.json is written. */
export const collectionText = (doc: Doc): string => `${JSON.stringify(buildCollection(doc), null, 2)}\n`;

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
export const OPENAPI_FILE = path.join(ROOT, "docs/openapi.json");
export const COLLECTION_FILE = path.join(ROOT, "docs/reseller-api.postman_collection.json");

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const doc = JSON.parse(fs.readFileSync(OPENAPI_FILE, "utf8"));
  fs.writeFileSync(COLLECTION_FILE, collectionText(doc));
  console.log(`wrote ${path.relative(process.cwd(), COLLECTION_FILE)} (${operationsOf(doc).length} requests)`);
}
