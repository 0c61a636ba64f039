import "server-only";
import type { ConsoleRoute } from "./shared";

// The console's resellers routes (issue 52).

export const RESELLERS_ROUTES: ConsoleRoute[] = [];
