import { describe, expect, it } from "vitest";
import { DASHBOARD_PERMISSIONS, TEAM_ROLES, teamCan } from "@/lib/teams/roles";

// Issue 54's rule, written out apart from the table (lib/teams/roles.ts), so that a wrong entry
// fails here: developers run keys, webhooks, widgets/channels and read the request log; finance
// reads statements and withdraws; a viewer reads the overview and orders; everyone reads the
// overview, orders and settings and manages their own sessions and teams; the owner does all.
const DEVELOPER = [
  "read:widgets",
  "read:brand",
  "read:keys",
  "read:webhook-endpoints",
  "read:webhook-deliveries",
  "read:requests",
  "action:createKeyAction",
  "action:rotateKeyAction",
  "action:revokeKeyAction",
  "action:setKeyMarkupAction",
  "action:createWebhookEndpointAction",
  "action:rotateWebhookSecretAction",
  "action:setWebhookEnabledAction",
  "action:sendWebhookTestAction",
  "action:redeliverWebhookAction",
  "action:redeliverFailedWebhooksAction",
  "action:createWidgetAction",
  "action:updateWidgetAction",
  "action:setWidgetEnabledAction",
  "action:setBrandAction",
];
const FINANCE = [
  "read:withdrawals",
  "read:statements",
  "read:payouts",
  "action:quoteWithdrawalAction",
  "action:confirmWithdrawalAction",
  "export:ledger",
  "export:statements",
];
const EVERYONE = [
  "read:overview",
  "read:earnings",
  "read:channels",
  "read:orders",
  "read:order",
  "read:settings",
  "export:orders",
  "action:signOutEverywhereAction",
  "action:leaveTeamAction",
  "action:switchTeamAction",
];
const expected: Record<string, string[]> = {
  owner: Object.keys(DASHBOARD_PERMISSIONS),
  developer: [...EVERYONE, ...DEVELOPER],
  finance: [...EVERYONE, ...FINANCE],
  viewer: EVERYONE,
};

describe("the team permission table", () => {
  for (const role of TEAM_ROLES)
    it(`${role} may do exactly what the rule says`, () => {
      const allowed = Object.keys(DASHBOARD_PERMISSIONS).filter((p) => teamCan(role, p));
      expect(allowed.sort()).toEqual([...expected[role]].sort());
    });

  it("refuses an unknown role, and a permission missing from the table, to everyone", () => {
    expect(teamCan("admin", "read:overview")).toBe(false);
    expect(teamCan("owner", "action:noSuchAction")).toBe(false);
    expect(teamCan("owner", "toString")).toBe(false);
  });
});
