import "server-only";
import { getDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { getBrandLogo } from "@/lib/resellers/brand";
import { noneMatchHits } from "./etag";
import { RawBytes } from "./respond";
import type { RouteHandler } from "./route";

// GET /api/hosted/brand/:id/logo?v=<hash>: a reseller's logo (docs/widgets.md, Brand), served
// by the app itself so the hosted pages load nothing from another host. A route of the hosted
// API (auth "page": only the app's own pages, so an <img> of another site gets 403; the client
// IP's keyless limits). The bytes were checked when saved (lib/resellers/brand.ts: PNG, JPEG or
// WebP by their own bytes, never SVG); the answer still tells the browser to treat them as
// nothing but an image of the stored type: nosniff, and a CSP that forbids everything and
// sandboxes the document should one open it directly.

const LOGO_HEADERS = {
  "x-content-type-options": "nosniff",
  "Content-Security-Policy": "default-src 'none'; sandbox",
  // The widget is same-origin inside its iframe: nothing else needs to load it.
  "Cross-Origin-Resource-Policy": "same-origin",
};
/** The URL names this version's bytes (its SHA-256): cached for good. */
const IMMUTABLE = "public, max-age=31536000, immutable";
/** Without the right hash (an old link, or none): the current logo, cached briefly and revalidated. */
const SHORT = "public, max-age=60, must-revalidate";

export const getBrandLogoHandler: RouteHandler = async ({ req, env }) => {
  const resellerId = env.params.id ?? "";
  const logo = await getBrandLogo(getDb(), { resellerId });
  if (!logo) throw new AppError("NOT_FOUND", "This reseller has no logo.");
  const etag = `"${logo.hash}"`;
  const current = req.query.get("v") === logo.hash;
  const headers: Record<string, string> = {
    ...LOGO_HEADERS,
    ETag: etag,
    "Cache-Control": current ? IMMUTABLE : SHORT,
  };
  if (noneMatchHits(req.header("if-none-match"), etag)) return { status: 304, body: null, headers };
  return { body: new RawBytes(logo.bytes), headers: { ...headers, "content-type": logo.type } };
};
