import "server-only";
import type { ConsoleRoute } from "./shared";

// The console's providers routes (issue 52).

export const PROVIDERS_ROUTES: ConsoleRoute[] = [];
