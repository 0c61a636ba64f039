// Who in a reseller's team may do what on the dashboard (issue 54, docs/dashboard.md#teams): the
// one table, read by every server action (sessionAction), every read (lib/dashboard/reads.ts),
// every CSV export and every page, and by the role table test (tests/http/team-roles.test.ts).
// Pure: the browser imports it too, to hide what a role cannot do (the server refuses it anyway).

export const TEAM_ROLES = ["owner", "developer", "finance", "viewer"] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

const EVERYONE = ["owner", "developer", "finance", "viewer"] as const;
const DEVELOPERS = ["owner", "developer"] as const;
const FINANCE = ["owner", "finance"] as const;
const OWNERS = ["owner"] as const;

/**
 * Every dashboard entry point and the roles allowed: `read:<name>` a GET read
 * (lib/dashboard/reads.ts), `action:<export>` a server action (app/dashboard/actions.ts),
 * `export:<name>` a CSV download (app/dashboard/export/<name>). The owner does everything;
 * developers run keys, webhooks, widgets and channels and read the request log; finance reads
 * earnings statements and withdraws; a viewer reads the overview and the orders. Everyone
 * reads the overview and orders, ends their own sessions, leaves a team and switches teams.
 * A name missing here is refused to every role. Adding an entry is one line.
 */
export const DASHBOARD_PERMISSIONS = {
  // Reads.
  "read:overview": EVERYONE,
  "read:earnings": EVERYONE,
  "read:channels": EVERYONE,
  "read:orders": EVERYONE,
  "read:order": EVERYONE,
  "read:settings": EVERYONE,
  "read:widgets": DEVELOPERS,
  "read:brand": DEVELOPERS,
  "read:keys": DEVELOPERS,
  "read:webhook-endpoints": DEVELOPERS,
  "read:webhook-deliveries": DEVELOPERS,
  "read:requests": DEVELOPERS,
  "read:withdrawals": FINANCE,
  "read:statements": FINANCE,
  "read:payouts": FINANCE,
  "read:team": OWNERS,
  // API keys and channels.
  "action:createKeyAction": DEVELOPERS,
  "action:rotateKeyAction": DEVELOPERS,
  "action:revokeKeyAction": DEVELOPERS,
  "action:setKeyMarkupAction": DEVELOPERS,
  // Webhooks.
  "action:createWebhookEndpointAction": DEVELOPERS,
  "action:rotateWebhookSecretAction": DEVELOPERS,
  "action:setWebhookEnabledAction": DEVELOPERS,
  "action:sendWebhookTestAction": DEVELOPERS,
  "action:redeliverWebhookAction": DEVELOPERS,
  "action:redeliverFailedWebhooksAction": DEVELOPERS,
  // Widgets and the brand.
  "action:createWidgetAction": DEVELOPERS,
  "action:updateWidgetAction": DEVELOPERS,
  "action:setWidgetEnabledAction": DEVELOPERS,
  "action:setBrandAction": DEVELOPERS,
  // Money.
  "action:quoteWithdrawalAction": FINANCE,
  "action:confirmWithdrawalAction": FINANCE,
  "action:setMarkupAction": OWNERS,
  // Automatic payouts: an owner's standing instruction, paid to the owner's own wallet.
  "action:requestPayoutInstructionAction": OWNERS,
  "action:signPayoutInstructionAction": OWNERS,
  "action:revokePayoutInstructionAction": OWNERS,
  // The member's own sessions and teams.
  "action:signOutEverywhereAction": EVERYONE,
  "action:leaveTeamAction": EVERYONE,
  "action:switchTeamAction": EVERYONE,
  // The team.
  "action:createInviteAction": OWNERS,
  "action:revokeInviteAction": OWNERS,
  "action:setMemberRoleAction": OWNERS,
  "action:removeMemberAction": OWNERS,
  // CSV downloads.
  "export:orders": EVERYONE,
  "export:ledger": FINANCE,
  "export:statements": FINANCE,
} as const satisfies Record<`${"read" | "action" | "export"}:${string}`, readonly TeamRole[]>;

export type DashboardPermission = keyof typeof DASHBOARD_PERMISSIONS;

export const isTeamRole = (v: unknown): v is TeamRole => typeof v === "string" && (TEAM_ROLES as readonly string[]).includes(v);

/** Whether `role` may do `permission`. An unknown role, or a permission not in the table, may do nothing. */
export function teamCan(role: string, permission: string): boolean {
  if (!Object.hasOwn(DASHBOARD_PERMISSIONS, permission)) return false;
  return (DASHBOARD_PERMISSIONS[permission as DashboardPermission] as readonly string[]).includes(role);
}

/** The dashboard's pages and the read that decides whether a role sees each (the nav hides the others). */
export const PAGE_PERMISSIONS = {
  "/dashboard": "read:overview",
  "/dashboard/orders": "read:orders",
  "/dashboard/withdrawals": "read:withdrawals",
  "/dashboard/statements": "read:statements",
  "/dashboard/keys": "read:keys",
  "/dashboard/requests": "read:requests",
  "/dashboard/widgets": "read:widgets",
  "/dashboard/webhooks": "read:webhook-endpoints",
  "/dashboard/settings": "read:settings",
  "/dashboard/team": "read:team",
} as const satisfies Record<string, DashboardPermission>;

export const ROLE_TEXT: Record<TeamRole, string> = {
  owner: "Owner: everything, the team included",
  developer: "Developer: API keys, webhooks, widgets and channels, the request log",
  finance: "Finance: earnings, statements, withdrawals",
  viewer: "Viewer: the overview and orders, read-only",
};
