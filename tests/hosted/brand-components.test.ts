import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { BrandFooter, BrandHeader } from "@/app/_hosted/Brand";
import type { PublicBrand } from "@/lib/resellers/brand-types";

// The hosted pages' brand header and footer (app/_hosted/Brand.tsx) as plain markup: rendered
// to static HTML with no hooks and no JavaScript, as a server component renders them.

const brand: PublicBrand = {
  name: "Acme <Exchange>",
  logo: { url: "/api/hosted/brand/abc/logo?v=00", width: 400, height: 100 },
  accent: "#f59e0b",
  support: { kind: "telegram", value: "@acme_support", href: "https://t.me/acme_support" },
  terms: "https://acme.example/terms",
};
const header = (b: PublicBrand) => renderToStaticMarkup(createElement(BrandHeader, { brand: b, labels: { logo: "Acme logo" } }));
const footer = (b: PublicBrand) =>
  renderToStaticMarkup(createElement(BrandFooter, { brand: b, labels: { support: "Support", terms: "Terms", newTab: "(new tab)" } }));
const none: PublicBrand = { name: null, logo: null, accent: null, support: null, terms: null };

describe("BrandHeader and BrandFooter", () => {
  it("the header: the logo from the app, sized within 160x40 with its proportions, its alt text, and the name escaped", () => {
    const html = header(brand);
    expect(html).toContain('<img src="/api/hosted/brand/abc/logo?v=00" width="160" height="40" alt="Acme logo"');
    expect(html).toContain("Acme &lt;Exchange&gt;");
    expect(header({ ...brand, logo: { url: "/l", width: 8, height: 6 } })).toContain('width="8" height="6"');
    expect(header({ ...brand, logo: null })).not.toContain("<img");
    expect(header(none)).toBe("");
  });

  it("the footer: external links open a new tab without opener or referrer; an email is a mailto: link in place", () => {
    const html = footer(brand);
    expect(html).toContain('<a href="https://t.me/acme_support" target="_blank" rel="noopener noreferrer"');
    expect(html).toContain('<a href="https://acme.example/terms" target="_blank" rel="noopener noreferrer"');
    expect(html).toContain("(new tab)");
    const mail = footer({ ...brand, support: { kind: "email", value: "help@acme.example", href: "mailto:help@acme.example" } });
    expect(mail).toMatch(/<a href="mailto:help@acme.example"[^>]*>help@acme.example<\/a>/);
    expect(mail).not.toMatch(/href="mailto:[^"]*"[^>]*target=/);
    expect(footer({ ...brand, terms: null })).not.toContain("Terms");
    expect(footer(none)).toBe("");
  });
});
