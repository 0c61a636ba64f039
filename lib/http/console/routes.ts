import "server-only";
import { AUTH_ROUTES } from "./auth";
import { OPERATOR_ROUTES } from "./operators";
import { ORDERS_ROUTES } from "./orders";
import { PROVIDERS_ROUTES } from "./providers";
import { QUEUE_ROUTES } from "./queue";
import { RESELLERS_ROUTES } from "./resellers";
import type { ConsoleRoute } from "./shared";
import { WITHDRAWALS_ROUTES } from "./withdrawals";

// The console's API (issue 52, docs/operator.md): every route, by domain, served under
// /api/console by lib/http/app.ts's router through the one wrapper (lib/http/route.ts, auth
// "operator": the console's own pages, a current session, the route's permission).
export const CONSOLE_ROUTES: ConsoleRoute[] = [
  ...AUTH_ROUTES,
  ...QUEUE_ROUTES,
  ...ORDERS_ROUTES,
  ...RESELLERS_ROUTES,
  ...WITHDRAWALS_ROUTES,
  ...PROVIDERS_ROUTES,
  ...OPERATOR_ROUTES,
];
