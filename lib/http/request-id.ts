import "server-only";
import crypto from "node:crypto";

// Every request gets an id, echoed in the X-Request-Id response header and put on the log
// lines about it: the caller's own (a proxy's or a client's) when it sent a sane one, else
// a fresh UUID. Sane: 1 to 128 visible ASCII characters (it goes into logs and headers).

const SANE = /^[\x21-\x7e]{1,128}$/;

export function requestIdOf(sent: string | string[] | undefined): string {
  return typeof sent === "string" && SANE.test(sent) ? sent : crypto.randomUUID();
}
