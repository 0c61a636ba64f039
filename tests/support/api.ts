import crypto from "node:crypto";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { inject } from "vitest";
import { generateAddress, getCurrency } from "@/lib/currencies";
import { createDb, type Db } from "@/lib/db/client";
import { createApiKey } from "@/lib/keys/api-keys";
import { getOrCreateReseller, setMarkup } from "@/lib/resellers/resellers";
import { recordSecret } from "./secrets";

// Helpers for HTTP tests: a fetch wrapper that keeps status, headers and the parsed body,
// a fresh client IP per test (the server trusts X-Forwarded-For in tests), and resellers
// with keys made through the same service functions the CLI and the dashboard use.

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export function baseUrl(prefix = "/api/v1") {
  return inject("baseUrl") + prefix;
}

let ipCounter = 0;
/** A client IP no other request of this run uses (documentation prefix; only ever sent as a header value). */
export function newIp(): string {
  ipCounter++;
  return `2001:db8:${process.pid.toString(16)}::${ipCounter.toString(16)}`;
}

export async function api<T = any>(
  path: string,
  opts: {
    method?: string;
    body?: unknown;
    rawBody?: string;
    key?: string;
    ip?: string;
    headers?: Record<string, string>;
    prefix?: string;
  } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { "x-forwarded-for": opts.ip ?? newIp(), ...(opts.headers ?? {}) };
  if (opts.key !== undefined) {
    headers["x-api-key"] = opts.key;
    recordSecret(opts.key);
  }
  let body: string | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["content-type"] ??= "application/json";
  }
  const method = opts.method ?? (body !== undefined ? "POST" : "GET");
  const res = await fetch(baseUrl(opts.prefix) + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  const answer = { status: res.status, headers: res.headers, body: parsed as T, text };
  const documented = OPENAPI_OF[opts.prefix ?? "/api/v1"];
  if (documented) await checkAgainstOpenApi(documented, method, path, answer);
  return answer;
}

// Every answer of a documented v1 or hosted route is checked against the response schema its
// API's served OpenAPI document gives for its status (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses): a
// field the code adds, renames or types differently than documented fails the test that
// received it, and so does a status the document does not list.
type OpenApiDoc = {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>>;
};
/** Each documented API's prefix, and where its document is served (the hosted one at its own openapi.json). */
const OPENAPI_OF: Record<string, string> = { "/api/v1": "/api/v1", "/api/hosted": "/api/hosted" };
const openApis = new Map<string, Promise<{ doc: OpenApiDoc; ajv: Ajv2020 }>>();
const validators = new Map<string, ValidateFunction>();

async function loadOpenApi(prefix: string) {
  const doc = (await (await fetch(`${baseUrl(prefix)}/openapi.json`)).json()) as OpenApiDoc & { components: { schemas: object } };
  // Responses carry exact decimals as JSON numbers; "format" keywords are documentation here.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ $id: "openapi", components: doc.components });
  return { doc, ajv };
}

function matchPath(paths: string[], path: string): string | null {
  const bare = path.split("?")[0];
  for (const p of paths) {
    const re = new RegExp(`^${p.replace(/\{[^}]+\}/g, "[^/]+")}$`);
    if (re.test(bare)) return p;
  }
  return null;
}

async function checkAgainstOpenApi(prefix: string, method: string, path: string, r: ApiResponse): Promise<void> {
  if (path.startsWith("/openapi.json")) return;
  let loaded = openApis.get(prefix);
  if (!loaded) {
    loaded = loadOpenApi(prefix);
    openApis.set(prefix, loaded);
  }
  const { doc, ajv } = await loaded;
  const template = matchPath(Object.keys(doc.paths), path);
  const op = template ? doc.paths[template][method.toLowerCase()] : undefined;
  if (!template || !op) return; // an undocumented route or method: the 404/405 tests check those
  const documented = op.responses[String(r.status)] ?? op.responses.default;
  if (!documented)
    throw new Error(`OpenAPI: ${method} ${template} answered ${r.status}, which the document does not list: ${r.text.slice(0, 300)}`);
  const schema = documented.content?.["application/json"]?.schema;
  if (!schema || !(r.headers.get("content-type") ?? "").includes("application/json")) return;
  const key = `${prefix} ${method} ${template} ${r.status}`;
  let validate = validators.get(key);
  if (!validate) {
    // Point the document's local $refs at the registered components.
    validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/')));
    validators.set(key, validate);
  }
  if (!validate(r.body))
    throw new Error(`OpenAPI: ${key} body does not match its schema: ${ajv.errorsText(validate.errors)}; body ${r.text.slice(0, 300)}`);
}

/** Asserts the spec's error shape: exactly { error: { code, message, ...extras } }. */
export function isErrorShape(body: unknown): boolean {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return false;
  const keys = Object.keys(body);
  const err = (body as { error?: unknown }).error;
  return (
    keys.length === 1 &&
    keys[0] === "error" &&
    typeof err === "object" &&
    err !== null &&
    typeof (err as { code?: unknown }).code === "string" &&
    /^[A-Z][A-Z0-9_]*$/.test((err as { code: string }).code) &&
    typeof (err as { message?: unknown }).message === "string"
  );
}

let db: Db | null = null;
/** The test server's database, for setting up resellers and reading the ledger. */
export function testDb(): Db {
  db ??= createDb(inject("databaseUrl"));
  return db;
}

export async function makeReseller(opts: { markupBps?: number } = {}) {
  const wallet = `0x${crypto.randomBytes(20).toString("hex")}`;
  const reseller = await getOrCreateReseller(testDb(), { walletAddress: wallet });
  if (opts.markupBps) await setMarkup(testDb(), { resellerId: reseller.id, markupBps: opts.markupBps });
  const { key, apiKey } = await createApiKey(testDb(), { resellerId: reseller.id, name: "test" });
  recordSecret(key);
  return { reseller, key, apiKey };
}

/** A fresh valid address for a currency, from the registry's own generator. */
export function addressFor(ticker: string): string {
  return generateAddress(getCurrency(ticker)!).address;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The key cache's stated bound (KEY_CACHE_TTL_MS's default; docs/configuration.md, Cached API
 * keys): a key or markup change made by another process (this test process, the CLI) applies
 * on the server within it, not necessarily on the very next request.
 */
export const KEY_CHANGE_BOUND_MS = 5000;

/** Reads until `ok` holds or the bound has passed; returns the last read, for the caller's expect. */
export async function withinKeyChangeBound<T>(read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + KEY_CHANGE_BOUND_MS;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > deadline) return v;
    await sleep(25);
  }
}

/** Polls an order until it reaches one of `states`, recording every status seen. */
export async function pollUntil(id: string, states: string[], opts: { key?: string; timeoutMs?: number } = {}) {
  const seen: string[] = [];
  const deadline = Date.now() + (opts.timeoutMs ?? 120_000); // a hang guard, not a speed bound
  for (;;) {
    const r = await api(`/exchange/${id}`, { key: opts.key });
    if (r.status !== 200) throw new Error(`status ${r.status}: ${r.text}`);
    if (seen[seen.length - 1] !== r.body.status) seen.push(r.body.status);
    if (states.includes(r.body.status)) return { order: r.body, seen };
    if (Date.now() > deadline) throw new Error(`order ${id} stuck in ${r.body.status}; saw ${seen.join(" -> ")}`);
    await sleep(25);
  }
}
