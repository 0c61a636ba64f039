import "server-only";
import type * as Lib from "@reseller/lib";

// The service layer for the dashboard's pages, route handlers and server actions: lib/'s one
// compiled copy (lib/dist/index.mjs), loaded by Node from node_modules/@reseller/lib, the
// very file server.ts loads for the v1 API and the worker. Turbopack must not follow this
// import: bundled, lib/ would exist once more per server layer (pages, route handlers,
// actions), each with its own database pool, limiters and engine. Everything else in app/
// imports lib/ through this module (docs/architecture.md, The import rule).
const lib: typeof Lib = await import(/* turbopackIgnore: true */ /* webpackIgnore: true */ "@reseller/lib");

export const {
  asResult,
  confirmWithdrawal,
  createApiKey,
  createEndpoint,
  csvDownload,
  dashboardError,
  endAllSessions,
  ensureNextAuthUrl,
  found,
  getAllowedChainIds,
  getAppOrigin,
  getAuthSecret,
  getContractWalletChainIds,
  getDb,
  getDocsData,
  getEarningsSeries,
  getLogger,
  getOverview,
  getResellerOrder,
  getSettingsView,
  getWithdrawalsView,
  issueNonce,
  jsonResponse,
  ledgerCsv,
  limitSigninNonce,
  listDeliveries,
  listEndpoints,
  listKeyRows,
  listResellerOrders,
  nextAuthRefusal,
  ordersCsv,
  parseInput,
  parseOrderQuery,
  quoteWithdrawal,
  rateLimitHeaders,
  revokeApiKey,
  rotateApiKey,
  rotateEndpointSecret,
  SERVICE_INSTANCE_ID,
  SessionEndedError,
  sendTestEvent,
  sessionReseller,
  setEndpointEnabled,
  setMarkup,
  signInWithEthereum,
  toKeyRow,
  UNAUTHORIZED,
  unauthorizedResponse,
} = lib;
