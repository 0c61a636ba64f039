// The limit servers of bench/production.mjs, one per process (as the app is): bare node:http,
// no router, no limiter, no validation. LIMIT selects what each request does:
//   static        send the currencies bytes (BODY_B64)
//   prisma-insert insert one order row through the app's own Prisma client (createApp(...).db())
//   prisma-read   read one order by primary key through it
//   raw-insert    the same insert through the bare driver (better-sqlite3 / pg), for information
//   raw-read      the same read through the bare driver, for information
// Order ids to read come in IDS (comma-separated); the row to insert copies the first of them.
import crypto from "node:crypto";
import http from "node:http";

const LIMIT = process.env.LIMIT;
const PORT = Number(process.env.PORT);
const json = (res, status, body) => {
  const b = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": b.length });
  res.end(b);
};

let handle;
if (LIMIT === "static") {
  const body = Buffer.from(process.env.BODY_B64, "base64");
  handle = (_req, res) => {
    res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": body.length });
    res.end(body);
  };
} else {
  const ids = (process.env.IDS ?? "").split(",").filter(Boolean);
  let i = 0;
  const nextId = () => ids[i++ % ids.length];
  // The row to insert: a copy of an order the app created, as the client reads it (new id).
  let template;
  const row = () => ({ ...template, id: crypto.randomBytes(12).toString("hex"), idempotencyScope: null, idempotencyKey: null });
  const url = process.env.DATABASE_URL;
  if (LIMIT.startsWith("prisma")) {
    const { createApp } = await import("../lib/dist/index.mjs");
    const db = createApp({ settings: process.env, name: "limit" }).db();
    template = await db.order.findUnique({ where: { id: ids[0] } });
    handle =
      LIMIT === "prisma-insert"
        ? async (_req, res) => json(res, 201, { id: (await db.order.create({ data: row() })).id })
        : async (_req, res) => json(res, 200, await db.order.findUnique({ where: { id: nextId() } }));
  } else if (url.startsWith("file:")) {
    const { default: Database } = await import("better-sqlite3");
    const s = new Database(url.slice(5), { timeout: 10_000 });
    s.pragma("journal_mode = WAL");
    const sel = s.prepare(`SELECT * FROM "Order" WHERE id = ?`);
    template = sel.get(ids[0]);
    const cols = Object.keys(row());
    const ins = s.prepare(`INSERT INTO "Order" (${cols.map((c) => `"${c}"`).join(",")}) VALUES (${cols.map(() => "?").join(",")})`);
    handle =
      LIMIT === "raw-insert"
        ? (_req, res) => {
            const r = row();
            ins.run(...cols.map((c) => r[c]));
            json(res, 201, { id: r.id });
          }
        : (_req, res) => json(res, 200, sel.get(nextId()));
  } else {
    const { default: pg } = await import("pg");
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    template = (await pool.query(`SELECT * FROM "Order" WHERE id = $1`, [ids[0]])).rows[0];
    const cols = Object.keys(row());
    const insSql = `INSERT INTO "Order" (${cols.map((c) => `"${c}"`).join(",")}) VALUES (${cols.map((_, n) => `$${n + 1}`).join(",")})`;
    handle =
      LIMIT === "raw-insert"
        ? async (_req, res) => {
            const r = row();
            await pool.query(
              insSql,
              cols.map((c) => r[c]),
            );
            json(res, 201, { id: r.id });
          }
        : async (_req, res) => json(res, 200, (await pool.query(`SELECT * FROM "Order" WHERE id = $1`, [nextId()])).rows[0]);
  }
}

http
  .createServer((req, res) => {
    Promise.resolve(handle(req, res)).catch((e) => json(res, 500, { error: String(e?.message ?? e) }));
  })
  .listen(PORT, "127.0.0.1", () => process.send?.("ready"));
