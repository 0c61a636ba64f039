"use client";

import { useEffect } from "react";

const TOKEN = /^[1-9A-HJ-NP-Za-km-z]{20,60}$/;

/**
 * An old status link keeps its secret in the fragment (/o/<id>#t=<secret>), which never reaches
 * the server: with JavaScript, move it into the query (/o/<id>?t=<secret>), replacing the
 * history entry, so the server can render the order. Without JavaScript such a link shows the 404.
 */
export function MoveFragmentToken() {
  useEffect(() => {
    const t = new URLSearchParams(window.location.hash.slice(1)).get("t");
    if (!t || !TOKEN.test(t) || new URLSearchParams(window.location.search).has("t")) return;
    const q = new URLSearchParams(window.location.search);
    q.set("t", t);
    window.location.replace(`${window.location.pathname}?${q.toString()}`);
  }, []);
  return null;
}
