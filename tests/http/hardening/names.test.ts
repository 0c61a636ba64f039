import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { callServerAction, readDashboard, signInOverHttp } from "../../support/dashboard";

// Names people give keys and widgets (issue 48): a NUL made PostgreSQL's insert fail with an
// INTERNAL_ERROR (and a stack trace logged at error level) where SQLite stored it. Every control
// character, bidi override and invisible-only name is a validation error now, on both databases,
// and no NUL reaches a query through any action argument.

const origin = () => inject("baseUrl");
let cookie = "";

beforeAll(async () => {
  const r = await signInOverHttp(origin(), privateKeyToAccount(generatePrivateKey()));
  expect(r.error).toBeNull();
  cookie = r.cookie;
});

const call = async (action: string, ...args: unknown[]) => (await callServerAction(origin(), cookie, action, args)).result;
const refusal = (r: { ok: boolean; error?: { code: string; message: string } }) => [r.ok, r.error?.code];

describe("key and widget names", () => {
  it("a NUL or another control character is INVALID_REQUEST, never INTERNAL_ERROR", async () => {
    const widget = await call("createWidgetAction", { name: "Shop" });
    expect(widget.ok).toBe(true);
    for (const r of [
      await call("createKeyAction", "a\u0000b"),
      await call("createWidgetAction", { name: "w\u0000x" }),
      await call("updateWidgetAction", widget.data.id, { name: "\u0000" }),
      await call("createKeyAction", "line\nbreak"),
      await call("createKeyAction", "tab\there"),
      await call("createWidgetAction", { name: "bell\u0007" }),
      await call("createKeyAction", "c1\u0085"),
    ])
      expect(refusal(r)).toEqual([false, "INVALID_REQUEST"]);
    // The widget kept its name.
    expect((await readDashboard(origin(), cookie, "widgets", {})).body.find((w: { id: string }) => w.id === widget.data.id).name).toBe(
      "Shop",
    );
  });

  it("names that show nothing, or reorder what follows, are refused with a message that says why", async () => {
    const zeroWidth = await call("createKeyAction", "\u200b\u200c\u200d\ufeff");
    expect(refusal(zeroWidth)).toEqual([false, "INVALID_REQUEST"]);
    expect(zeroWidth.error.message).toMatch(/visible character/);
    const marks = await call("createWidgetAction", { name: "\u200e\u200f\u061c" });
    expect(refusal(marks)).toEqual([false, "INVALID_REQUEST"]);
    expect(marks.error.message).toMatch(/visible character/);
    const override = await call("createKeyAction", "invoice\u202egnp.exe");
    expect(refusal(override)).toEqual([false, "INVALID_REQUEST"]);
    expect(override.error.message).toMatch(/bidirectional/);
    expect(refusal(await call("createKeyAction", "\ud800broken"))).toEqual([false, "INVALID_REQUEST"]);
  });

  it("ordinary names in any script, with emoji, still work", async () => {
    for (const name of ["Приложение", "店铺 API", "Café ☕", "👩‍💻 dev", "שלום app"]) {
      const r = await call("createKeyAction", name);
      expect(r.ok, JSON.stringify(r)).toBe(true);
      expect(r.data.apiKey.name).toBe(name);
    }
  });

  it("a NUL in an id or any other argument is refused before it reaches the database", async () => {
    for (const [action, args] of [
      ["revokeKeyAction", ["\u0000"]],
      ["rotateKeyAction", ["k\u0000"]],
      ["setWidgetEnabledAction", ["wg\u0000", true]],
      ["createWebhookEndpointAction", [{ url: "https://hooks.example/\u0000", events: ["order.created"] }]],
    ] as const)
      expect(refusal(await call(action, ...args)), action).toEqual([false, "INVALID_REQUEST"]);
    // The reads (GET) the same.
    for (const [name, query] of [
      ["orders", { q: "ab\u0000cd" }],
      ["order", { id: "0123456789abcdef0123456\u0000" }],
    ] as const) {
      const r = await readDashboard(origin(), cookie, name, query);
      expect([r.status, r.body.error.code], name).toEqual([400, "INVALID_REQUEST"]);
    }
  });
});
