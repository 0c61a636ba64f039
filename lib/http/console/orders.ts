import "server-only";
import type { ConsoleRoute } from "./shared";

// The console's orders routes (issue 52).

export const ORDERS_ROUTES: ConsoleRoute[] = [];
