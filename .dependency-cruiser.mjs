// The import rules of the code base (docs/architecture.md, The import rule), checked by `npm run lint`:
// dependency-cruiser resolves every import (relative, "@/lib/...", "@reseller/lib", type-only
// ones too) to its file, which a rule on import strings (Biome's noRestrictedImports) cannot.
//
// lib/ is layered: a module may import its own folder and the layers below it, never one
// above. The lowest layer is the shared base (its modules may import each other); the worker,
// at the top, composes everyone; lib/index.ts is the door the adapters outside lib/ use.

/** lib/'s layers, lowest first: each entry is a layer, its folders (or top-level modules) by name. */
const LAYERS = [
  // The base: errors, ids, money, settings, logging, and the shared vocabulary (lib/domain:
  // order states and reasons, rate types, the markup and rate maths). lib/providers is here
  // because config reads the providers' definitions (their settings are part of the one config).
  [
    "errors",
    "ids",
    "money",
    "config",
    "settings",
    "providers",
    "log",
    "native-date",
    "root",
    "instance",
    "domain",
    "scope",
    "clock",
    "i18n",
  ],
  ["db"],
  // Leaf helpers of background work: leases, backoff, heartbeats.
  ["jobs"],
  ["currencies"],
  ["observability"],
  // The request log of keyed v1 requests: its buffer, writes, list and retention (issue 53).
  ["request-log"],
  ["ratelimit"],
  ["engine"],
  // Live prices: asked of the engine.
  ["prices"],
  ["quotes"],
  ["ledger"],
  // Channels (API keys, widgets, the hosted page): their markup and the widgets' settings.
  ["channels"],
  ["keys"],
  ["resellers"],
  // Resellers' teams (issue 54): members, roles, invitations and their record.
  ["teams"],
  ["auth"],
  // The console's operators, their sessions and the audit log (issue 52).
  ["operators"],
  ["webhooks"],
  ["orders"],
  ["withdrawals"],
  // Automatic payouts by a signed standing instruction (issue 54): they queue withdrawals.
  ["payouts"],
  // The hosted exchange page and the widget (their order links, views and estimates).
  ["hosted"],
  // The worker's passes (the console's "sync now" runs one for an order).
  ["worker"],
  // The operator's console: what it reads and does across orders, resellers, money and providers.
  ["console"],
  ["http"],
  ["dashboard"],
  // The app as a value (lib/app/create-app.ts) and its operator commands: it composes everyone.
  ["app"],
];

const modules = (names) => `^lib/(${names.join("|")})(/|\\.ts$)`;

const layerRules = LAYERS.slice(0, -1).map((layer, i) => {
  const above = LAYERS.slice(i + 1).flat();
  return {
    name: `lib-layers: ${layer.join(", ")}`,
    comment: `lib/${layer.join(", lib/")} may import only the layers below it, not ${above.join(", ")} (docs/architecture.md, The import rule).`,
    severity: "error",
    from: { path: modules(layer) },
    to: { path: modules(above) },
  };
});

export default {
  forbidden: [
    ...layerRules,
    {
      name: "lib-not-to-index",
      comment: "lib/index.ts is the service layer as the adapters outside lib/ see it; inside lib/, modules import each other directly.",
      severity: "error",
      from: { path: "^lib/", pathNot: "^lib/index\\.ts$" },
      to: { path: "^lib/index\\.ts$" },
    },
    {
      name: "lib-not-to-adapters",
      comment:
        "lib/ is the service layer: it imports neither the dashboard (app/, components/) nor the processes (server.ts, worker.ts, scripts/).",
      severity: "error",
      from: { path: "^lib/" },
      to: { path: "^(app|components|scripts)/|^(server|worker)\\.ts$" },
    },
    {
      name: "components-not-to-app",
      comment:
        "components/ holds the shared UI only: a view that calls the dashboard's actions lives beside its route in app/, so app/ and components/ never import each other both ways.",
      severity: "error",
      from: { path: "^components/" },
      to: { path: "^app/" },
    },
    {
      name: "no-circular",
      comment: "No import circles: a module's dependencies never lead back to it.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^lib/(db/generated|dist)/" },
    // Type-only imports count too: a type from a layer above is an upward arrow as well.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".mjs", ".js", ".json"] },
  },
};
