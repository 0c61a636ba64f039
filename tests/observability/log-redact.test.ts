import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, redactUrl } from "@/lib/log";

// The status page's link carries its order's secret in the query (/o/<id>?t=...): no logged URL
// may hold it (docs/widgets.md, The status link's secret).

describe("logged URLs", () => {
  it("lose the status link's secret, wherever t= stands in the query, and keep the rest", () => {
    expect(redactUrl("/o/0123456789abcdef01234567?t=4pZkq9Xw2&lang=de")).toBe("/o/0123456789abcdef01234567?t=[redacted]&lang=de");
    expect(redactUrl("/o/x?lang=de&t=abc#frag")).toBe("/o/x?lang=de&t=[redacted]#frag");
    expect(redactUrl("/x/abc?to=eth&from=btc")).toBe("/x/abc?to=eth&from=btc");
    expect(redactUrl(undefined)).toBeUndefined();
  });

  it("a logger writes any `url` field redacted", () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    createLogger("debug", sink).debug({ url: "/o/0123?t=SECRETSECRETSECRET&lang=fr" }, "went away");
    expect(lines.join("")).not.toContain("SECRETSECRETSECRET");
    expect(JSON.parse(lines[0]).url).toBe("/o/0123?t=[redacted]&lang=fr");
  });
});
