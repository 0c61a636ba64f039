import "server-only";
import type { ConsoleRoute } from "./shared";

// The console's queue routes (issue 52).

export const QUEUE_ROUTES: ConsoleRoute[] = [];
