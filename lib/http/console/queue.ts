import "server-only";
import { readQueue } from "@/lib/console/queue";
import { getDb } from "@/lib/db/client";
import type { ConsoleRoute } from "./shared";

// The console's queue (issue 52, point 2): what needs a person, oldest first (lib/console/queue.ts).

export const QUEUE_ROUTES: ConsoleRoute[] = [
  {
    method: "GET",
    path: "/queue",
    permission: "queue.read",
    handler: async () => ({ body: await readQueue({ db: getDb() }) }),
  },
];
