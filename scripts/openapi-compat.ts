// Breaking changes between two versions of the v1 OpenAPI document: what a client written
// against the old one could trip over in the new one. tests/http/openapi-compat.test.ts
// compares the served document with the committed snapshot, docs/openapi.json, and fails on
// any breaking change until the snapshot is updated in the same commit
// (`npm run openapi:snapshot`). Written here, not taken from a library: openapi-diff (the
// maintained npm one) reads OpenAPI 3.0 only and refuses this 3.1 document; oasdiff is a Go
// binary, which CI cannot install from npm or Debian.
//
// The rules, from a client's side:
// - a path, an operation, or a success (2xx/3xx) response is gone;
// - what the service sends (responses, webhook payloads) may now hold something the client
//   did not expect: a property removed, a required one made optional, a type or an enum value
//   added;
// - what the client sends (parameters, request bodies) may now be refused: a property or
//   parameter removed, a new required one, a type or an enum value removed, a tighter bound.

type Json = Record<string, unknown>;
type Direction = "response" | "request";

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"] as const;

const obj = (v: unknown): Json => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** A schema with its local $ref followed (#/components/...), as often as it takes. */
function resolve(doc: Json, schema: unknown, seen = new Set<string>()): Json {
  let s = obj(schema);
  while (typeof s.$ref === "string" && s.$ref.startsWith("#/") && !seen.has(s.$ref)) {
    seen.add(s.$ref);
    const target = s.$ref
      .slice(2)
      .split("/")
      .reduce<unknown>((at, key) => obj(at)[key.replaceAll("~1", "/").replaceAll("~0", "~")], doc);
    // Keywords beside a $ref (3.1 allows them, e.g. a description) add to the target.
    const { $ref: _ref, ...rest } = s;
    s = { ...obj(target), ...rest };
  }
  return s;
}

/** The JSON types a schema allows ("integer" counts as a number); null means any. */
function typesOf(s: Json): Set<string> | null {
  const t = s.type;
  const types = typeof t === "string" ? [t] : Array.isArray(t) ? (t as string[]) : null;
  if (types) return new Set(types.map((x) => (x === "integer" ? "number" : x)));
  if (s.const !== undefined) return new Set([s.const === null ? "null" : Array.isArray(s.const) ? "array" : typeof s.const]);
  return null;
}

const valuesOf = (s: Json): unknown[] | null => (Array.isArray(s.enum) ? s.enum : s.const !== undefined ? [s.const] : null);
const key = (v: unknown) => JSON.stringify(v);

function compareSchemas(ctx: { a: Json; b: Json; out: string[] }, oldS: unknown, newS: unknown, dir: Direction, where: string, depth = 0) {
  if (depth > 40) return;
  const a = resolve(ctx.a, oldS);
  const b = resolve(ctx.b, newS);
  const report = (what: string) => ctx.out.push(`${where}: ${what}`);

  // Types: a response may not widen, a request may not narrow.
  const [ta, tb] = [typesOf(a), typesOf(b)];
  const narrower = dir === "response" ? tb : ta;
  const wider = dir === "response" ? ta : tb;
  if (narrower === null && wider !== null) report(`${dir === "response" ? "may now be of any type" : "no longer takes any type"}`);
  else if (narrower && wider) {
    const extra = [...narrower].filter((t) => !wider.has(t));
    if (extra.length) report(dir === "response" ? `may now be ${extra.join(" or ")}` : `no longer takes ${extra.join(" or ")}`);
  }

  // Enumerations: a response may not add a value, a request may not drop one.
  const [va, vb] = [valuesOf(a), valuesOf(b)];
  if (dir === "response" && vb && (!va || vb.some((v) => !va.map(key).includes(key(v)))))
    report(
      `may now be ${
        vb
          .filter((v) => !va?.map(key).includes(key(v)))
          .map(key)
          .join(", ") || "any value"
      }`,
    );
  if (dir === "request" && va && (!vb || va.some((v) => !vb.map(key).includes(key(v)))))
    report(
      `no longer takes ${va
        .filter((v) => !vb?.map(key).includes(key(v)))
        .map(key)
        .join(", ")}`,
    );

  // Bounds on what a client sends.
  if (dir === "request")
    for (const [k, tighter] of [
      ["maxLength", (x: number, y: number) => y < x],
      ["maximum", (x: number, y: number) => y < x],
      ["maxItems", (x: number, y: number) => y < x],
      ["minLength", (x: number, y: number) => y > x],
      ["minimum", (x: number, y: number) => y > x],
      ["minItems", (x: number, y: number) => y > x],
    ] as const) {
      const [x, y] = [a[k], b[k]];
      if (typeof y === "number" && (typeof x !== "number" || tighter(x, y)))
        report(`${k} is now ${y}${typeof x === "number" ? ` (was ${x})` : ""}`);
    }

  // Objects: properties and which of them are required.
  const [pa, pb] = [obj(a.properties), obj(b.properties)];
  const [ra, rb] = [new Set(list(a.required) as string[]), new Set(list(b.required) as string[])];
  for (const name of Object.keys(pa)) {
    if (!(name in pb)) {
      report(`property ${name} was removed`);
      continue;
    }
    if (dir === "response" && ra.has(name) && !rb.has(name)) report(`property ${name} is no longer always present`);
    compareSchemas(ctx, pa[name], pb[name], dir, `${where}.${name}`, depth + 1);
  }
  if (dir === "request") for (const name of rb) if (!ra.has(name)) report(`property ${name} is now required`);

  // Arrays and alternatives.
  if (a.items !== undefined || b.items !== undefined) compareSchemas(ctx, a.items, b.items, dir, `${where}[]`, depth + 1);
  for (const k of ["oneOf", "anyOf"] as const) {
    const [xa, xb] = [list(a[k]), list(b[k])];
    if (!xa.length && !xb.length) continue;
    if (xa.length !== xb.length) report(`${k} has ${xb.length} alternatives (was ${xa.length})`);
    else for (const [i, x] of xa.entries()) compareSchemas(ctx, x, xb[i], dir, `${where}(${k} ${i})`, depth + 1);
  }
}

const jsonBody = (doc: Json, body: unknown) => obj(obj(resolve(doc, body).content)["application/json"]).schema;

function compareOperation(ctx: { a: Json; b: Json; out: string[] }, oa: Json, ob: Json, where: string, dir: "call" | "webhook") {
  // Parameters (by place and name): what the client sends.
  const params = (doc: Json, op: Json) =>
    new Map(
      list(op.parameters).map((p) => {
        const r = resolve(doc, p);
        return [`${r.in} ${r.name}`, r] as const;
      }),
    );
  const [qa, qb] = [params(ctx.a, oa), params(ctx.b, ob)];
  for (const [name, p] of qa) {
    const q = qb.get(name);
    if (!q) ctx.out.push(`${where}: parameter ${name} was removed`);
    else compareSchemas(ctx, p.schema, q.schema, "request", `${where} parameter ${name}`);
  }
  for (const [name, q] of qb) if (!qa.has(name) && q.required === true) ctx.out.push(`${where}: parameter ${name} is new and required`);

  // The request body: what the client sends (a webhook's body is what the service sends).
  const [ba, bb] = [resolve(ctx.a, oa.requestBody), resolve(ctx.b, ob.requestBody)];
  if (Object.keys(ba).length || Object.keys(bb).length) {
    const bodyDir = dir === "webhook" ? "response" : "request";
    if (bodyDir === "request" && bb.required === true && ba.required !== true) ctx.out.push(`${where}: the request body is now required`);
    compareSchemas(ctx, jsonBody(ctx.a, ba), jsonBody(ctx.b, bb), bodyDir, `${where} body`);
  }

  // Responses: what the service sends.
  const [sa, sb] = [obj(oa.responses), obj(ob.responses)];
  for (const status of Object.keys(sa)) {
    if (!(status in sb)) {
      if (/^[23]/.test(status)) ctx.out.push(`${where}: response ${status} was removed`);
      continue;
    }
    compareSchemas(ctx, jsonBody(ctx.a, sa[status]), jsonBody(ctx.b, sb[status]), "response", `${where} ${status}`);
  }
}

/** Every breaking change from `oldDoc` to `newDoc`, one line each ("POST /exchange 201.toAmount: property ... was removed"). */
export function breakingChanges(oldDoc: unknown, newDoc: unknown): string[] {
  const ctx = { a: obj(oldDoc), b: obj(newDoc), out: [] as string[] };
  for (const [section, dir] of [
    ["paths", "call"],
    ["webhooks", "webhook"],
  ] as const) {
    const [pa, pb] = [obj(ctx.a[section]), obj(ctx.b[section])];
    for (const path of Object.keys(pa)) {
      const [ia, ib] = [obj(pa[path]), obj(pb[path])];
      if (!(path in pb)) {
        ctx.out.push(`${section === "paths" ? path : `webhook ${path}`}: removed`);
        continue;
      }
      for (const m of METHODS) {
        if (!(m in ia)) continue;
        const where = `${m.toUpperCase()} ${section === "paths" ? path : `webhook ${path}`}`;
        if (!(m in ib)) ctx.out.push(`${where}: removed`);
        else compareOperation(ctx, obj(ia[m]), obj(ib[m]), where, dir);
      }
    }
  }
  return ctx.out;
}
