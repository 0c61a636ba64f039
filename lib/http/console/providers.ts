import "server-only";
import { z } from "zod";
import { providerHealth } from "@/lib/console/providers/provider-health";
import { setProviderSwitch } from "@/lib/console/providers/set-provider-switch";
import { getDb } from "@/lib/db/client";
import { actorOf, type ConsoleRoute, consoleBody, reason } from "./shared";

// The console's Providers page (issue 52, point 7): health, and the run-time switch.

const switchBody = z.object({ reason });

const switchRoute = (enabled: boolean): ConsoleRoute => ({
  method: "POST",
  path: `/providers/:name/${enabled ? "enable" : "disable"}`,
  permission: "providers.switch",
  handler: async (ctx) => {
    const body = await consoleBody(ctx.req, switchBody);
    return { body: await setProviderSwitch(getDb(), { provider: ctx.env.params.name, enabled, by: actorOf(ctx), reason: body.reason }) };
  },
});

export const PROVIDERS_ROUTES: ConsoleRoute[] = [
  {
    method: "GET",
    path: "/providers",
    permission: "providers.read",
    handler: async () => ({ body: { providers: await providerHealth(getDb()) } }),
  },
  switchRoute(true),
  switchRoute(false),
];
