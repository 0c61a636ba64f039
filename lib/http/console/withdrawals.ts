import "server-only";
import type { ConsoleRoute } from "./shared";

// The console's withdrawals routes (issue 52).

export const WITHDRAWALS_ROUTES: ConsoleRoute[] = [];
