import "server-only";

// The service layer as the adapters outside lib/ see it: server.ts and worker.ts import
// "@reseller/lib", the dashboard imports app/_server/lib.ts, and all of them get this module
// compiled once to lib/dist/index.mjs and loaded by Node, so the process holds one instance
// of every lib module (docs/architecture.md). Inside lib/, modules import each other
// directly; scripts and unit tests import lib/ sources directly too (their processes load
// no second copy). Sorted by module; add what an adapter needs, nothing more.

export { type App, type AppParts, createApp, type StartedApp } from "./app/create-app";
export { issueNonce } from "./auth/nonce";
export { ensureNextAuthUrl, getAllowedChainIds, getAppOrigin, getContractWalletChainIds } from "./auth/origin";
export { ensureAuthSecret, getAuthSecret } from "./auth/secret";
export {
  endDashboardSession,
  endWalletSessions,
  SESSION_MAX_AGE_SECONDS,
  SessionEndedError,
  sessionMember,
  sessionReseller,
  switchSessionTeam,
} from "./auth/session-version";
export { signInWithEthereum } from "./auth/sign-in";
export { createWidget, listWidgets, MAX_WIDGETS, setKeyMarkup, setWidgetEnabled, updateWidget } from "./channels/channels";
export { getConfig } from "./config";
// The console's order search, for bench/console-orders.mjs (the console itself is served by lib/http).
export { listConsoleOrders } from "./console/orders/list";
export { asResult, parseInput, UNAUTHORIZED } from "./dashboard/actions-core";
export { getChannelStats } from "./dashboard/channels";
export { getDocsData } from "./dashboard/docs";
export { getEarningsSeries } from "./dashboard/earnings";
export { ledgerCsv, ordersCsv, statementsCsv } from "./dashboard/export";
export { channelOptions, listKeyRows, toKeyRow } from "./dashboard/keys";
export { getResellerOrder, listResellerOrders, parseOrderQuery } from "./dashboard/orders";
export { getOverview } from "./dashboard/overview";
export { serveDashboardRead } from "./dashboard/reads";
export { getRequestLogPage } from "./dashboard/requests";
export { csvDownload, dashboardError, forbiddenResponse, jsonResponse, nextAuthRefusal, unauthorizedResponse } from "./dashboard/route";
export { getSettingsView } from "./dashboard/settings";
export { getStatements } from "./dashboard/statements";
export { getWithdrawalsView } from "./dashboard/withdrawals";
export { closeDb, getDb } from "./db/client";
export { migrate } from "./db/migrate";
export { hostedCurrencies, hostedOrderBrand, hostedPage, hostedSandboxEnabled, hostedStatusPath } from "./hosted/hosted";
export {
  pageCheckAddress,
  pageCreateOrder,
  pageEstimate,
  pageOrder,
  pageRange,
  pageSandboxDeposit,
  pageSetRefundAddress,
} from "./hosted/page";
export { apiOnlyHandler, type NextHandler } from "./http/next-bridge";
export { loadServerActionIds } from "./http/next-guard";
export { shutDown } from "./http/shutdown";
export { SERVICE_INSTANCE_ID } from "./instance";
export { createApiKey, MAX_ACTIVE_KEYS, revokeApiKey, rotateApiKey } from "./keys/api-keys";
export { checkLedger } from "./ledger/check";
export { getLogger } from "./log";
export { NativeDate, restoreNativeDate } from "./native-date";
export { listenForMetrics } from "./observability/metrics";
export { requestInstruction, revokeInstruction, signInstruction } from "./payouts/instructions";
export { limitSigninNonce, rateLimitHeaders } from "./ratelimit/limiter";
export { getBrand, getBrandSettings, setBrand } from "./resellers/brand";
export { endAllSessions, setMarkup } from "./resellers/resellers";
export { projectRoot } from "./root";
export {
  changeRole,
  createInvite,
  describeInvite,
  getTeamView,
  leaveTeam,
  removeMember,
  requirePermission,
  revokeInvite,
  teamsOf,
} from "./teams/team";
export {
  createEndpoint,
  listEndpoints,
  rotateEndpointSecret,
  sendTestEvent,
  setEndpointEnabled,
} from "./webhooks/endpoints";
export { MAX_REDELIVER, redeliverFailed, redeliverOne } from "./webhooks/redeliver";
export { confirmWithdrawal, quoteWithdrawal } from "./withdrawals/withdrawals";
