import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// Every relative link in the project's documentation points at a file that exists, and every
// #anchor at a heading (or an explicit id) of that file. Hand-written rather than a markdown
// parser: the docs use plain inline links only, and a regular expression over the text with
// code blocks and code spans removed is all that needs; it reads ~15 files in milliseconds.

const DOCS = [
  "README.md",
  "bench/README.md",
  ...fs
    .readdirSync("docs", { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".md"))
    .map((f) => path.join("docs", f)),
];

/** The text a reader sees as prose: fenced code blocks and inline code spans removed. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/`+[^`\n]*`+/g, "");
}

/** GitHub's heading ids: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  for (const [, heading] of withoutFences.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1");
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
      .replace(/ /g, "-");
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    ids.add(n ? `${slug}-${n}` : slug);
  }
  for (const [, id] of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) ids.add(id);
  return ids;
}

/** Relative link targets of a file: inline links and images, external URLs left out. */
function relativeLinks(markdown: string): string[] {
  return [...prose(markdown).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)]
    .map((m) => m[1])
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe("documentation links", () => {
  it("the files it checks are the ones that exist", () => {
    expect(DOCS).toEqual(
      expect.arrayContaining(["README.md", "bench/README.md", "docs/README.md", "docs/api.md", "docs/configuration.md"]),
    );
  });

  it.each(DOCS)("%s: every relative link resolves to a file, and every anchor to a heading", (file) => {
    const broken: string[] = [];
    for (const link of relativeLinks(fs.readFileSync(file, "utf8"))) {
      const [target, anchor] = link.split("#", 2);
      const resolved = target ? path.normalize(path.join(path.dirname(file), decodeURI(target))) : file;
      if (!fs.existsSync(resolved)) {
        broken.push(`${link}: no file ${resolved}`);
        continue;
      }
      if (anchor !== undefined && !anchors(fs.readFileSync(resolved, "utf8")).has(decodeURIComponent(anchor)))
        broken.push(`${link}: no heading or id "${anchor}" in ${resolved}`);
    }
    expect(broken).toEqual([]);
  });

  it("the checker itself: finds links outside code, slugs headings as GitHub does", () => {
    const md =
      "# A `b` (c), d/e\n## A b c de\n```sh\n[x](nowhere.md)\n```\n[y](api.md#a-b-c-de) `[z](gone.md)` ![p](s.png) [w](https://x.org/a)\n";
    expect(relativeLinks(md)).toEqual(["api.md#a-b-c-de", "s.png"]);
    expect([...anchors(md)]).toEqual(["a-b-c-de", "a-b-c-de-1"]);
  });
});

describe("the README", () => {
  it("stays a five-minute read: under 250 lines", () => {
    expect(fs.readFileSync("README.md", "utf8").trimEnd().split("\n").length).toBeLessThan(250);
  });
});
