import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/server";

// The dashboard reads over GET (lib/dashboard/reads.ts, app/dashboard/read.ts) and writes with
// server actions: React runs a client's actions one at a time, so a poll made as an action
// holds up every write behind it (docs/architecture.md, The dashboard's reads and writes).
// This fails when a react-query `queryFn` reaches a server action: any identifier in it that
// is imported from a "use server" module, directly or through the helpers it calls (functions
// of the same file, or exported by another module of app/ or components/).

type Files = Map<string, string>;

interface Violation {
  file: string;
  line: number;
  action: string;
  via: string[];
}

const hasUseServer = (statements: ts.NodeArray<ts.Statement>) =>
  statements.some((s) => ts.isExpressionStatement(s) && ts.isStringLiteral(s.expression) && s.expression.text === "use server");
const isUseServer = (sf: ts.SourceFile) => hasUseServer(sf.statements);
/** A function with its own "use server" directive: an inline server action. */
const isInlineAction = (n: ts.Node) =>
  ts.isFunctionLike(n) && "body" in n && !!n.body && ts.isBlock(n.body) && hasUseServer(n.body.statements);

/** The file an import names, among `files` (the "@/" alias and relative paths; packages: null). */
function resolve(from: string, spec: string, files: Files): string | null {
  const base = spec.startsWith("@/") ? spec.slice(2) : spec.startsWith(".") ? path.posix.join(path.posix.dirname(from), spec) : null;
  if (base === null) return null;
  for (const f of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`]) if (files.has(f)) return f;
  return null;
}

/** Checks every queryFn of `files` (path -> source); answers the queryFns found and the violations. */
function checkQueryFns(files: Files): { queryFns: number; violations: Violation[] } {
  const parsed = new Map<string, ts.SourceFile>();
  const sf = (f: string) => {
    let s = parsed.get(f);
    if (!s) {
      s = ts.createSourceFile(f, files.get(f)!, ts.ScriptTarget.Latest, true, f.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
      parsed.set(f, s);
    }
    return s;
  };
  /** A file's imports (local name -> module file and the name it has there) and top-level declarations. */
  const scopeOf = (f: string) => {
    const imports = new Map<string, { file: string; name: string }>();
    const decls = new Map<string, ts.Node>();
    for (const st of sf(f).statements) {
      if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier) && st.importClause && !st.importClause.isTypeOnly) {
        const target = resolve(f, st.moduleSpecifier.text, files);
        if (!target) continue;
        const c = st.importClause;
        if (c.name) imports.set(c.name.text, { file: target, name: "default" });
        if (c.namedBindings && ts.isNamespaceImport(c.namedBindings)) imports.set(c.namedBindings.name.text, { file: target, name: "*" });
        if (c.namedBindings && ts.isNamedImports(c.namedBindings))
          for (const el of c.namedBindings.elements)
            if (!el.isTypeOnly) imports.set(el.name.text, { file: target, name: (el.propertyName ?? el.name).text });
      }
      if (ts.isFunctionDeclaration(st) && st.name) decls.set(st.name.text, st);
      if (ts.isVariableStatement(st))
        for (const d of st.declarationList.declarations)
          if (ts.isIdentifier(d.name) && d.initializer) decls.set(d.name.text, d.initializer);
    }
    return { imports, decls };
  };
  const scopes = new Map<string, ReturnType<typeof scopeOf>>();
  const scope = (f: string) => {
    if (!scopes.has(f)) scopes.set(f, scopeOf(f));
    return scopes.get(f)!;
  };

  const violations: Violation[] = [];
  /** Walks `node` (in file `f`) for server actions, following the helpers it names. */
  const scan = (f: string, node: ts.Node, origin: { file: string; line: number }, via: string[], seen: Set<string>) => {
    const visit = (n: ts.Node) => {
      if (isInlineAction(n)) violations.push({ ...origin, action: `${f}: an inline "use server" function`, via });
      if (ts.isIdentifier(n)) {
        const { imports, decls } = scope(f);
        const imp = imports.get(n.text);
        if (imp && isUseServer(sf(imp.file))) {
          violations.push({ ...origin, action: `${imp.file}: ${imp.name}`, via });
        } else if (imp && imp.name !== "*" && imp.name !== "default") {
          const key = `${imp.file}#${imp.name}`;
          const decl = scope(imp.file).decls.get(imp.name);
          if (decl && !seen.has(key)) {
            seen.add(key);
            scan(imp.file, decl, origin, [...via, key], seen);
          }
        } else if (!imp && decls.has(n.text)) {
          const key = `${f}#${n.text}`;
          if (!seen.has(key)) {
            seen.add(key);
            scan(f, decls.get(n.text)!, origin, [...via, key], seen);
          }
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(node);
  };

  let queryFns = 0;
  for (const f of files.keys()) {
    const visit = (n: ts.Node) => {
      if (
        (ts.isPropertyAssignment(n) || ts.isMethodDeclaration(n) || ts.isShorthandPropertyAssignment(n)) &&
        ts.isIdentifier(n.name) &&
        n.name.text === "queryFn"
      ) {
        queryFns++;
        const line = sf(f).getLineAndCharacterOfPosition(n.getStart()).line + 1;
        scan(f, ts.isShorthandPropertyAssignment(n) ? n.name : n, { file: f, line }, [], new Set());
      }
      ts.forEachChild(n, visit);
    };
    visit(sf(f));
  }
  return { queryFns, violations };
}

function readTree(): Files {
  const files: Files = new Map();
  for (const dir of ["app", "components"])
    for (const f of fs.readdirSync(path.join(ROOT, dir), { recursive: true, encoding: "utf8" }))
      if (/\.tsx?$/.test(f)) files.set(`${dir}/${f.split(path.sep).join("/")}`, fs.readFileSync(path.join(ROOT, dir, f), "utf8"));
  return files;
}

describe("react-query reads never call server actions", () => {
  it("no queryFn in app/ or components/ reaches a server action", () => {
    const files = readTree();
    const { queryFns, violations } = checkQueryFns(files);
    expect(violations).toEqual([]);
    // Every view's query was looked at (not a vacuous pass): one per read of the dashboard, 12 today.
    expect(queryFns).toBeGreaterThanOrEqual(12);
    // The only "use server" modules are the forms' actions: the dashboard's writes, and the hosted
    // pages' forms (the exchange form, the sandbox's deposit, the refund address), which work
    // without JavaScript (issue 51) and are never a react-query read.
    const useServer = [...files].filter(([f, src]) => isUseServer(ts.createSourceFile(f, src, ts.ScriptTarget.Latest)));
    expect(useServer.map(([f]) => f).sort()).toEqual(["app/_hosted/actions.ts", "app/dashboard/actions.ts"]);
  });

  it("catches a read made a server action again, directly or through a helper", () => {
    const files = readTree();
    // The reads as they were before issue 50: a "use server" module of reads, called by a view's queryFn.
    files.set("app/dashboard/queries.ts", `"use server";\nexport const getSettingsAction = async () => ({ ok: true, data: 1 });\n`);
    const view = "app/dashboard/settings/SettingsView.tsx";
    files.set(
      view,
      files
        .get(view)!
        .replace(/^/, 'import { getSettingsAction } from "@/app/dashboard/queries";\n')
        .replace(/queryFn: [^,]+,/, "queryFn: () => callAction(getSettingsAction()),"),
    );
    expect(checkQueryFns(files).violations).toEqual([
      { file: view, line: expect.any(Number), action: "app/dashboard/queries.ts: getSettingsAction", via: [] },
    ]);
    // Through a helper in another module.
    files.set(
      "app/dashboard/helper.ts",
      `import { getSettingsAction } from "./queries";\nexport const settings = () => getSettingsAction();\n`,
    );
    files.set(
      view,
      files.get(view)!.replace("callAction(getSettingsAction())", "settings()").replace(/^/, 'import { settings } from "./../helper";\n'),
    );
    expect(checkQueryFns(files).violations).toEqual([
      {
        file: view,
        line: expect.any(Number),
        action: "app/dashboard/queries.ts: getSettingsAction",
        via: ["app/dashboard/helper.ts#settings"],
      },
    ]);
    // An inline server action (a function with its own "use server") the same.
    files.set("app/dashboard/helper.ts", `export async function settings() {\n  "use server";\n  return 1;\n}\n`);
    expect(checkQueryFns(files).violations).toEqual([
      {
        file: view,
        line: expect.any(Number),
        action: 'app/dashboard/helper.ts: an inline "use server" function',
        via: ["app/dashboard/helper.ts#settings"],
      },
    ]);
    // A write action called from a queryFn counts the same.
    files.set(view, files.get(view)!.replace("settings()", "callAction(setMarkupAction(1))"));
    expect(checkQueryFns(files).violations.map((v) => v.action)).toEqual(["app/dashboard/actions.ts: setMarkupAction"]);
  });
});
