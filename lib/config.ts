import "server-only";
import { isIP } from "node:net";
import path from "node:path";
import { z } from "zod";
import { PROVIDER_SETTINGS, PROVIDERS, type ProviderSettings } from "./providers/registry";
import { provide, type Scope, type Settings as SettingsEnv, slot } from "./scope";
import { bool, int } from "./settings";

// Every setting the product reads, in one place, validated once: the providers' own settings
// come from their definitions (lib/providers/registry.ts). docs/configuration.md's settings
// table mirrors this schema.

export type TrustProxy = { hops: number } | { addresses: string[] };

const TOKENS_SPEC = /^\s*[a-z0-9]+=0x[0-9a-fA-F]{40}(\s*,\s*[a-z0-9]+=0x[0-9a-fA-F]{40})*\s*$/;
const LOW_BALANCE_SPEC = /^\s*[a-z0-9]+=\d+(\.\d+)?(\s*,\s*[a-z0-9]+=\d+(\.\d+)?)*\s*$/;
const GWEI = /^\d+(\.\d{1,9})?$/;
const PRIVATE_KEY = /^0x[0-9a-fA-F]{64}$/;

/** One more payout chain of PAYOUT_CHAINS (JSON): what is not given comes from the PAYOUT_* settings of the first chain. */
const payoutChainSchema = z
  .object({
    chainId: z.number().int().min(1),
    name: z.string().max(100).optional(),
    rpcUrl: z.string().url().optional(),
    privateKey: z.string().regex(PRIVATE_KEY, "expected 0x followed by 64 hex digits").optional(),
    tokens: z.string().regex(TOKENS_SPEC, "expected ticker=0xaddress, comma-separated").optional(),
    confirmations: z.number().int().min(1).optional(),
    explorerUrl: z.string().url().optional(),
    walletRpcUrl: z.string().url().optional(),
    minUsd: z
      .string()
      .regex(/^\d+(\.\d+)?$/, "expected a decimal number of US dollars")
      .optional(),
    maxFeeGwei: z.string().regex(GWEI, "expected a decimal number of gwei").optional(),
    lowBalance: z.string().regex(LOW_BALANCE_SPEC, "expected ticker=amount, comma-separated").optional(),
  })
  .strict();
export type PayoutChainSetting = z.infer<typeof payoutChainSchema>;

/** PAYOUT_CHAINS parsed and checked; throws a sentence naming what is wrong. */
export function parsePayoutChains(json: string): PayoutChainSetting[] {
  if (!json.trim()) return [];
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new Error("PAYOUT_CHAINS: not JSON (expected an array of chains)");
  }
  const parsed = z.array(payoutChainSchema).safeParse(raw);
  if (!parsed.success) throw new Error(`PAYOUT_CHAINS: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  return parsed.data;
}

/** An IP address or CIDR, or one of proxy-addr's names for the private ranges. */
function isProxyAddress(s: string): boolean {
  if (["loopback", "linklocal", "uniquelocal"].includes(s)) return true;
  const [addr, bits, ...rest] = s.split("/");
  if (rest.length || !isIP(addr)) return false;
  if (bits === undefined) return true;
  const max = isIP(addr) === 4 ? 32 : 128;
  return /^\d+$/.test(bits) ? Number(bits) <= max : isIP(bits) === 4;
}

const schema = z.object({
  PORT: int(3000, 0),
  HOST: z.string().default("0.0.0.0"),
  /** Public origin of the app (scheme://host[:port]); SIWE messages must name it. */
  APP_URL: z.string().url().optional(),
  /**
   * The app's onion service host (abc...xyz.onion, docs/deploy.md, Onion service): the end
   * user's pages (/x, /w, /o) then send Onion-Location, so Tor Browser offers the onion address.
   */
  ONION_ADDRESS: z
    .string()
    .regex(/^[a-z2-7]{56}\.onion$/, "is not a v3 onion host (56 base32 characters, then .onion)")
    .optional(),
  DATABASE_URL: z.string().default("file:./data/reseller.db"),
  /** PostgreSQL: connections in each process's pool (Prisma and the bare driver's statements share it). */
  DATABASE_POOL_MAX: int(10, 1),
  REDIS_URL: z.string().optional(),
  /** memory | redis | postgres. Default: redis when REDIS_URL is set, postgres on PostgreSQL, else memory. */
  RATE_LIMIT_STORE: z.enum(["memory", "redis", "postgres"]).optional(),
  /**
   * API keys: how long a process reuses a key (and its markup) it has read, without asking the
   * database (lib/keys/key-cache.ts). The bound: a revoked key or a changed markup applies on
   * every instance within this long of the change, never later; with the invalidation
   * connection up it applies as soon as the change is announced. 0: no cache (every keyed
   * request reads the database).
   */
  KEY_CACHE_TTL_MS: int(5000, 0),
  /**
   * PostgreSQL: how the processes hear of key and markup changes: postgres (a trigger's NOTIFY,
   * one LISTEN connection per process; it sees every writer) or redis (pub/sub on REDIS_URL,
   * published by the process making the change; for a database behind a transaction pooler,
   * where LISTEN does not work). SQLite reads a version row instead and ignores this.
   */
  KEY_CACHE_INVALIDATION: z.enum(["postgres", "redis"]).default("postgres"),
  RATE_LIMIT_PUBLIC_PER_MINUTE: int(60, 1),
  RATE_LIMIT_PUBLIC_CREATES_PER_DAY: int(100, 1),
  RATE_LIMIT_KEY_PER_MINUTE: int(300, 1),
  /** Sign-in nonces a client IP may ask for per minute (the dashboard's only unauthenticated write). */
  RATE_LIMIT_SIGNIN_PER_MINUTE: int(30, 1),
  /**
   * Which X-Forwarded-For entries come from your own proxies: false (none, the socket's
   * address is the client), a hop count (1 = one proxy in front; true means 1), or a comma
   * list of proxy addresses/CIDRs (and loopback, linklocal, uniquelocal). The client IP is
   * the first entry, from the right, that no trusted proxy wrote (lib/http/client-ip.ts).
   */
  TRUST_PROXY: z
    .string()
    .default("false")
    .transform((v, ctx): TrustProxy => {
      const t = v.trim().toLowerCase();
      if (["false", "0", "no", ""].includes(t)) return { hops: 0 };
      if (["true", "yes"].includes(t)) return { hops: 1 };
      if (/^\d+$/.test(t)) return { hops: Number(t) };
      const list = t
        .split(",")
        .map((x) => x.trim())
        .filter(Boolean);
      if (list.every(isProxyAddress)) return { addresses: list };
      ctx.addIssue({ code: "custom", message: "expected false, a hop count, or a comma list of proxy addresses/CIDRs" });
      return z.NEVER;
    }),
  PLATFORM_FEE_BPS: int(25, 0),
  MARKUP_CAP_BPS: int(1000, 0),
  QUOTE_TTL_SECONDS: int(60, 1),
  ORDER_TTL_SECONDS: int(3600, 1),
  /** Fixed rate: how long after creation a deposit of the quoted amount is paid at the locked amount. */
  FIXED_RATE_WINDOW_SECONDS: int(1200, 1),
  /** simulated (built in, the default) or providers (upstream partner APIs, docs/providers.md). */
  ENGINE: z.enum(["simulated", "providers"]).default("simulated"),
  SANDBOX: bool.default(true),
  /** Simulated engine: seconds between confirming -> exchanging -> sending -> finished. */
  SIM_STEP_SECONDS: z.coerce.number().min(0).max(3600).default(3),
  /** Simulated engine: also deposit automatically this many seconds after creation (0 = off). */
  SIM_AUTO_DEPOSIT_SECONDS: z.coerce.number().min(0).default(0),
  /** Simulated engine: how long each engine call takes, like an upstream API's latency (0 = instant). */
  SIM_STEP_DELAY_MS: int(0, 0),
  // ENGINE=providers (docs/providers.md).
  /** How long an estimate waits for the providers' quotes; those not in by then are skipped. */
  PROVIDERS_QUOTE_DEADLINE_MS: int(2500, 50),
  /** Longest wait for any one upstream HTTP request. */
  PROVIDERS_HTTP_TIMEOUT_MS: int(10_000, 50),
  /** How long a quote is reused for its pair, amount band and commission. */
  PROVIDERS_QUOTE_CACHE_SECONDS: z.coerce.number().min(0).default(30),
  /**
   * Live prices (lib/prices): how long a price is reused for its pair. With ENGINE=providers a
   * price is the engine's best quote for a reference amount, so this bounds how often prices
   * spend the providers' quote budgets.
   */
  PRICES_CACHE_SECONDS: z.coerce.number().min(0).default(30),
  /** Live prices: the oldest price a withdrawal quote may use; with no fresher one it is refused (PRICE_UNAVAILABLE). */
  PRICES_MAX_AGE_SECONDS: z.coerce.number().min(1).default(120),
  /** Live prices, ENGINE=providers: the USD stablecoin (registry ticker) whose quotes give USD values, taken at 1 USD. */
  PRICES_USD_ASSET: z
    .string()
    .regex(/^[a-z0-9]+$/, "expected a registry ticker")
    .default("usdc"),
  /** How long a provider that failed or timed out is skipped. */
  PROVIDERS_COOLDOWN_SECONDS: z.coerce.number().min(0).default(30),
  /** First delay between status reads of an open upstream order; it grows as the order ages. */
  PROVIDERS_POLL_SECONDS: z.coerce.number().min(0.01).default(15),
  /** Open upstream orders older than this are flagged for the operator (orders:stuck). */
  PROVIDERS_STUCK_AFTER_MINUTES: z.coerce.number().min(0).default(360),
  /** A waiting order the provider still calls waiting this long after its deadline fails as expired. */
  PROVIDERS_EXPIRY_GRACE_SECONDS: int(3600, 0),
  /** How often each process reloads the providers' currency lists. */
  PROVIDERS_SYNC_SECONDS: int(3600, 1),
  // Each provider's: enabled, credentials, base URL, commission, quote budget.
  ...PROVIDER_SETTINGS,
  /** Run the order worker inside the app process. */
  WORKER_IN_PROCESS: bool.default(true),
  WORKER_POLL_MS: int(500, 10),
  /** How long a claim on an order lasts; an engine call is abandoned after half of it. */
  WORKER_LEASE_SECONDS: int(30, 1),
  /** First retry delay after a failed engine call; doubles with each failure, up to WORKER_RETRY_MAX_MS. */
  WORKER_RETRY_BASE_MS: int(2000, 1),
  WORKER_RETRY_MAX_MS: int(300_000, 1),
  /** Engine calls that may fail in a row for one step before the order fails with engine_error. */
  WORKER_MAX_ATTEMPTS: int(10, 1),
  /** Webhooks: also deliver to private, loopback, link-local and other non-public addresses (tests, closed networks). */
  WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  /** Webhooks: longest wait for an endpoint's answer. */
  WEBHOOK_TIMEOUT_MS: int(10_000, 100),
  /** Webhooks: seconds before each retry after a failed attempt; a delivery fails once they are spent (about 27 h). */
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .regex(/^\s*\d+(\.\d+)?(\s*,\s*\d+(\.\d+)?)*\s*$/, "expected seconds, comma-separated")
    .default("5,300,1800,7200,18000,36000,36000"),
  /** Webhooks: failed attempts in a row (no success between them) after which an endpoint is disabled. */
  WEBHOOK_DISABLE_AFTER_FAILURES: int(50, 1),
  /**
   * Webhooks: days a finished message (no delivery pending) is kept, with its deliveries and
   * attempts, after its creation and its last attempt; then the workers delete it. 0 keeps
   * them forever. 30 days: a month of answers to "did you send it?", and a month of log to
   * reconcile against, for far less than the table would otherwise grow (every order event).
   */
  WEBHOOK_RETENTION_DAYS: int(30, 0),
  /** How long a team invitation's link may be used (issue 54, lib/teams): a week to get round to it, no more. */
  TEAM_INVITE_TTL_HOURS: int(168, 1),
  /**
   * The request log (lib/request-log, the dashboard's Requests page): every v1 request made with
   * an API key is kept in memory and written in batches, off the request path. A batch goes out
   * every REQUEST_LOG_FLUSH_MS, or as soon as REQUEST_LOG_BATCH rows wait.
   */
  /** false: no request is recorded (the Requests page stays empty); what is kept is still pruned. */
  REQUEST_LOG_ENABLED: bool.default(true),
  REQUEST_LOG_FLUSH_MS: int(1000, 10),
  // 10,000: each write is a commit (on SQLite an fsync on the event loop, and every reader
  // connection's page cache dropped), so fewer and larger ones cost the request path less: at
  // 15k keyed req/s, 2,000 made seven commits a second, and SQLite's GET /exchange/{id} lost 3 to
  // 5% of its throughput to the log against 0 to 2% with 10,000 (bench/README.md, Request log).
  // Encoding 10,000 rows takes about 5 ms, once a second at most rates (REQUEST_LOG_FLUSH_MS).
  REQUEST_LOG_BATCH: int(10_000, 1),
  /**
   * Most rows waiting to be written (a slow or unreachable database): beyond it a request is not
   * logged, and request_log_dropped_total counts it. ~300 bytes a row: 50,000 rows is ~15 MB,
   * five full batches.
   */
  REQUEST_LOG_BUFFER_MAX: int(50_000, 1),
  /** Days a request log row is kept; then the workers delete it, in batches. 0 keeps them forever. */
  REQUEST_LOG_DAYS: int(30, 0),
  /** Live status (GET /exchange/{id}/events): seconds between the heartbeat comments of an open stream. */
  EVENTS_HEARTBEAT_SECONDS: int(15, 1),
  /** Live status: how often the app's one reader of new order events looks for them, while a stream is open. */
  EVENTS_POLL_MS: int(500, 10),
  /** Live status: streams one API key may hold open at once on one instance; past it, 429 RATE_LIMITED. */
  EVENTS_MAX_PER_KEY: int(20, 1),
  /** Live status: streams one client IP may hold open at once without an API key, on one instance; past it, 429 RATE_LIMITED. */
  EVENTS_MAX_PER_IP: int(10, 1),
  /** Serve the dashboard (Next.js) from this process; false for API-only instances. */
  SERVE_DASHBOARD: bool.default(true),
  /** Largest request body, for every route (the API, next-auth and the dashboard's actions); larger is a 413. */
  MAX_BODY_BYTES: int(16 * 1024, 256),
  /** Time a client has to send its request headers. */
  HTTP_HEADERS_TIMEOUT_MS: int(10_000, 100),
  /** Time a client has to send its whole request, body included. */
  HTTP_REQUEST_TIMEOUT_MS: int(30_000, 100),
  /** Open connections the server accepts at once; more are closed at once. */
  HTTP_MAX_CONNECTIONS: int(1024, 1),
  /** Serve /metrics on this port only (not on PORT); 0 or unset: on PORT. The worker process serves it only here. */
  METRICS_PORT: int(0, 0),
  /** When set, /metrics answers only requests with "Authorization: Bearer <token>". */
  METRICS_TOKEN: z.string().min(16).optional(),
  /** /metrics: how old the finished and failed order counts may be (recounting them reads every closed order); 0: at every scrape. */
  METRICS_FINAL_COUNTS_SECONDS: int(300, 0),
  /** /metrics: how old the reconciliation gauges may be (a reconciliation reads the treasury and provider accounts and the chain); 0: at every scrape. */
  METRICS_RECONCILE_SECONDS: int(60, 0),
  /** On SIGTERM: how long in-flight requests and worker steps may take before the process exits anyway. */
  SHUTDOWN_TIMEOUT_MS: int(25_000, 100),
  /** On SIGTERM: how long to keep serving (with /readyz at 503) before closing the listener, so a balancer can stop sending first. */
  SHUTDOWN_DRAIN_DELAY_MS: int(0, 0),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  NEXTAUTH_SECRET: z.string().optional(),
  /** Chain ids a Sign-In with Ethereum message may name, comma-separated. */
  SIWE_CHAIN_IDS: z
    .string()
    .regex(/^\d+(,\s*\d+)*$/)
    .default("1"),
  /**
   * JSON-RPC node per chain id, "1=https://...,8453=https://...": lets smart-contract wallets
   * (EIP-1271, e.g. Safe) sign in on those chains. Unset: ordinary wallets only.
   */
  SIWE_RPC_URL: z
    .union([
      z.literal(""),
      z.string().regex(/^\s*\d+=https?:\/\/[^,\s]+(\s*,\s*\d+=https?:\/\/[^,\s]+)*\s*$/, "expected chainId=http(s)://url, comma-separated"),
    ])
    .optional(),
  // Withdrawals (lib/withdrawals, docs/withdrawals.md): profit paid on an EVM chain from the operator's hot wallet.
  /** simulated (the default: no chain, nothing is paid) or evm (a real chain through PAYOUT_RPC_URL). */
  PAYOUT_SENDER: z.enum(["simulated", "evm"]).default("simulated"),
  /** JSON-RPC node of the payout chain (PAYOUT_SENDER=evm). May hold a provider key: never logged. */
  PAYOUT_RPC_URL: z.union([z.literal(""), z.string().url()]).optional(),
  /** Chain the payouts are made on; the confirmation signature names it. */
  PAYOUT_CHAIN_ID: int(1, 1),
  /** The hot wallet's private key, 0x + 64 hex (PAYOUT_SENDER=evm). Never logged. */
  PAYOUT_PRIVATE_KEY: z.union([z.literal(""), z.string().regex(/^0x[0-9a-fA-F]{64}$/, "expected 0x followed by 64 hex digits")]).optional(),
  /** ERC-20 payout assets besides native ETH: "usdc=0xA0b8...,usdt=0xdAC1..." (tickers of the registry). */
  PAYOUT_TOKENS: z.union([z.literal(""), z.string().regex(TOKENS_SPEC, "expected ticker=0xaddress, comma-separated")]).default(""),
  /** The payout chain's name as a wallet shows it when the withdrawal page adds the chain to it. */
  PAYOUT_CHAIN_NAME: z.string().max(100).default(""),
  /**
   * A PUBLIC JSON-RPC URL of the payout chain, offered to a wallet that does not know the chain
   * (wallet_addEthereumChain); it is sent to the browser, so never PAYOUT_RPC_URL with a key.
   */
  PAYOUT_WALLET_RPC_URL: z.union([z.literal(""), z.string().url()]).optional(),
  /** Blocks a payout needs (its own included) before the withdrawal is confirmed. */
  PAYOUT_CONFIRMATIONS: int(1, 1),
  /** Percent added to an ERC-20 payout's gas estimate for its gas limit (unused gas is not charged). */
  PAYOUT_GAS_MARGIN_PERCENT: int(20, 0),
  /** A payout broadcast this long ago and still not mined is replaced at its nonce with higher fees. */
  PAYOUT_BUMP_AFTER_SECONDS: int(120, 1),
  /** Each replacement raises both EIP-1559 fees by at least this percent (plus 1 wei); nodes ask for 10. */
  PAYOUT_FEE_BUMP_PERCENT: int(12, 10),
  /** The highest max fee per gas a payout is signed with, in gwei (decimal): past it, a stuck payout waits. */
  PAYOUT_MAX_FEE_GWEI: z
    .string()
    .regex(/^\d+(\.\d{1,9})?$/, "expected a decimal number of gwei (at most 9 decimals)")
    .default("500"),
  /** A confirmed payout is watched this many blocks after its own for a reorganisation that takes it out of the chain (0: not watched). */
  PAYOUT_REORG_WATCH_BLOCKS: int(64, 0),
  /** Low-balance thresholds of the hot wallet per payout asset, in units of the asset: "eth=0.5,usdc=1000". */
  PAYOUT_LOW_BALANCE: z.union([z.literal(""), z.string().regex(LOW_BALANCE_SPEC, "expected ticker=amount, comma-separated")]).default(""),
  /**
   * More payout chains besides PAYOUT_CHAIN_ID, as JSON: [{"chainId":8453,"name":"Base","rpcUrl":"...",
   * "tokens":"usdc=0x...","confirmations":3,"explorerUrl":"...","minUsd":"5","maxFeeGwei":"5"}]. May hold
   * provider keys and private keys: never logged.
   */
  PAYOUT_CHAINS: z.string().default(""),
  /** Block explorer base URL; a withdrawal links to <url>/tx/<hash>. */
  PAYOUT_EXPLORER_URL: z.union([z.literal(""), z.string().url()]).optional(),
  /** Smallest withdrawal, in USD at live prices (decimal). */
  WITHDRAWAL_MIN_USD: z
    .string()
    .regex(/^\d+(\.\d+)?$/, "expected a decimal number of US dollars")
    .default("10"),
  /**
   * How long a worker's claim on a withdrawal lasts: each payout step (signing, persisting,
   * broadcasting, reading the receipt) must end within it, or another worker may take the
   * withdrawal over (which is safe: a signed transaction is persisted before it is sent).
   */
  WITHDRAWAL_LEASE_SECONDS: int(60, 1),
  // The operator's console (issue 52, docs/operator.md).
  /** The first admin of the console: an Ethereum address made admin at start when no admin exists ("" : none; or the CLI's operator:add). */
  OPERATOR_ADMIN_WALLET: z.union([z.literal(""), z.string().regex(/^0x[0-9a-fA-F]{40}$/, "expected a 0x address")]).default(""),
  /** How long a console session lasts, in hours. */
  OPERATOR_SESSION_HOURS: int(8, 1),
  /** A withdrawal worth more than this, in USD at live prices, waits for a finance operator's approval ("" : none does). */
  WITHDRAWAL_APPROVAL_USD: z
    .union([z.literal(""), z.string().regex(/^\d+(\.\d+)?$/, "expected a decimal number of US dollars")])
    .default(""),
  /**
   * Automatic payouts (lib/payouts, docs/payouts.md): a signed change of a standing instruction
   * that pays another wallet or raises a cap applies only this many hours after it is signed
   * (lowering a cap or revoking applies at once).
   */
  PAYOUT_CHANGE_DELAY_HOURS: int(24, 0),
  /**
   * Automatic payouts: how often each worker runs their pass (due instructions queued as
   * withdrawals), in seconds. A threshold's check prices the reseller's balances, so not every poll.
   */
  PAYOUTS_PASS_SECONDS: int(30, 1),
  /** The console's queue: an open order in one state longer than this is stuck, in minutes per state: "confirming=120,exchanging=120,sending=120". */
  QUEUE_STUCK_MINUTES: z
    .string()
    .regex(/^\s*[a-z]+=\d+(\s*,\s*[a-z]+=\d+)*\s*$/, "expected state=minutes, comma-separated")
    .default("waiting=1440,confirming=120,exchanging=120,sending=120"),
  /** How often each instance re-reads the providers switched on or off in the console, in seconds. */
  PROVIDER_SWITCH_SECONDS: int(10, 1),
});

/** Every setting's name, for docs/configuration.md's table (a test keeps them in step). */
export const SETTING_NAMES = Object.keys(schema.shape);

export type Config = z.infer<typeof schema> & {
  databaseProvider: "sqlite" | "postgresql";
  sqlitePath: string | null;
  /** The sandbox endpoints are on: SANDBOX and the simulated engine (never with a real one). */
  sandboxEnabled: boolean;
};

/** The current app's settings, parsed once per app (lib/scope.ts). */
const configSlot = slot((scope) => parseConfig(scope.settings));

export function getConfig(): Config {
  return configSlot();
}

/** Settings (as the entry point read them from the environment) parsed and checked; throws a sentence naming what is wrong. */
export function parseConfig(settings: SettingsEnv): Config {
  const parsed = schema.safeParse(settings);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n");
    throw new Error(`invalid settings:\n${lines}`);
  }
  const c = parsed.data;
  if (c.ENGINE === "providers") checkProviders(c);
  // A price from the engine may come out of its quote cache, so it counts as that much older (lib/prices).
  if (c.ENGINE === "providers" && c.PRICES_MAX_AGE_SECONDS <= c.PROVIDERS_QUOTE_CACHE_SECONDS + c.PRICES_CACHE_SECONDS)
    throw new Error(
      "invalid settings:\n  PRICES_MAX_AGE_SECONDS must exceed PROVIDERS_QUOTE_CACHE_SECONDS + PRICES_CACHE_SECONDS (a fresh price would be too old)",
    );
  if (c.KEY_CACHE_INVALIDATION === "redis" && !c.REDIS_URL)
    throw new Error("invalid settings:\n  KEY_CACHE_INVALIDATION=redis: set REDIS_URL");
  if (c.PAYOUT_SENDER === "evm" && (!c.PAYOUT_RPC_URL || !c.PAYOUT_PRIVATE_KEY))
    throw new Error("invalid settings:\n  PAYOUT_SENDER=evm: set PAYOUT_RPC_URL and PAYOUT_PRIVATE_KEY");
  try {
    const more = parsePayoutChains(c.PAYOUT_CHAINS);
    const ids = [c.PAYOUT_CHAIN_ID, ...more.map((m) => m.chainId)];
    const twice = ids.find((id, i) => ids.indexOf(id) !== i);
    if (twice !== undefined) throw new Error(`PAYOUT_CHAINS: chain ${twice} is configured twice`);
    if (c.PAYOUT_SENDER === "evm") {
      const noRpc = more.find((m) => !m.rpcUrl);
      if (noRpc) throw new Error(`PAYOUT_CHAINS: chain ${noRpc.chainId} needs an rpcUrl (PAYOUT_SENDER=evm)`);
    }
  } catch (e) {
    throw new Error(`invalid settings:\n  ${(e as Error).message}`);
  }
  const provider = /^postgres(ql)?:\/\//.test(c.DATABASE_URL) ? "postgresql" : "sqlite";
  if (provider === "sqlite" && !c.DATABASE_URL.startsWith("file:"))
    throw new Error("DATABASE_URL must be file:<path> (SQLite) or postgres://... (PostgreSQL)");
  const sqlitePath = provider === "sqlite" ? path.resolve(c.DATABASE_URL.slice("file:".length)) : null;
  return { ...c, databaseProvider: provider, sqlitePath, sandboxEnabled: c.SANDBOX && c.ENGINE === "simulated" };
}

/** Gives an app a parsed config of its own (createApp({ config })) instead of parsing its settings. */
export function provideConfig(scope: Scope, config: Config): void {
  provide(scope, configSlot, config);
}

/**
 * What an enabled provider accepts as commission (platform fee + markup, bps), and the
 * setting that decides it. Per-request providers take up to a cap; per-account ones take
 * orders whose fee + markup the share set on the account covers (docs/providers.md section 1).
 */
export interface ProviderCommissionCap {
  provider: string;
  label: string;
  /** The highest fee + markup the provider routes, in bps. */
  capBps: number;
  /** The setting that sets capBps, or a sentence saying it is the provider's own rule. */
  setting: string;
  /** The highest markup it routes (capBps - PLATFORM_FEE_BPS); negative: none. */
  maxMarkupBps: number;
}

type Settings = Pick<z.infer<typeof schema>, "ENGINE" | "PLATFORM_FEE_BPS" | "MARKUP_CAP_BPS"> & ProviderSettings;

/** Each enabled provider's commission cap (ENGINE=providers; empty otherwise). */
export function providerCommissionCaps(c: Settings): ProviderCommissionCap[] {
  if (c.ENGINE !== "providers") return [];
  return PROVIDERS.filter((p) => c[p.enabledBy]).map((p) => {
    const { capBps, setting } = p.commissionCap(c);
    return { provider: p.name, label: p.label, capBps, setting, maxMarkupBps: capBps - c.PLATFORM_FEE_BPS };
  });
}

export interface MarkupRange {
  /** The highest markup some enabled provider routes (and MARKUP_CAP_BPS allows). */
  maxBps: number;
  /** What caps it: MARKUP_CAP_BPS, or the providers' commission rules. */
  limitedBy: "MARKUP_CAP_BPS" | "providers";
  /** Per enabled provider: the highest markup it takes (ENGINE=providers; empty with the simulated engine). */
  providers: { provider: string; label: string; maxMarkupBps: number }[];
}

/** The markups orders can be routed at now: 0 to maxBps. */
export function markupRange(c: Settings): MarkupRange {
  const caps = providerCommissionCaps(c);
  const providers = caps.map(({ provider, label, maxMarkupBps }) => ({ provider, label, maxMarkupBps: Math.max(-1, maxMarkupBps) }));
  if (!caps.length) return { maxBps: c.MARKUP_CAP_BPS, limitedBy: "MARKUP_CAP_BPS", providers };
  const routable = Math.max(...caps.map((p) => p.maxMarkupBps));
  return routable < c.MARKUP_CAP_BPS
    ? { maxBps: Math.max(0, routable), limitedBy: "providers", providers }
    : { maxBps: c.MARKUP_CAP_BPS, limitedBy: "MARKUP_CAP_BPS", providers };
}

/**
 * Why a markup is refused: the range, and, when the providers' commission rules (not
 * MARKUP_CAP_BPS) set its top, what each enabled provider takes, since any markup above
 * would be refused on every estimate and order (503). The reseller's markup and every
 * channel's (keys, widgets) are checked against it alike.
 */
export function markupRangeMessage(range: MarkupRange): string {
  const base = `Markup must be a whole number of basis points from 0 to ${range.maxBps}.`;
  if (range.limitedBy !== "providers") return base;
  return `${base} Higher markups cannot be routed: the exchange providers take the platform fee plus the markup within their commission caps (${describeMarkupRange(range)}).`;
}

/** "SideShift up to 175 bps, FixedFloat up to 275 bps": what each provider routes, for messages. */
export function describeMarkupRange(r: MarkupRange): string {
  return r.providers.map((p) => (p.maxMarkupBps < 0 ? `${p.label} none` : `${p.label} up to ${p.maxMarkupBps} bps`)).join(", ");
}

/**
 * An enabled provider whose commission rule admits not even the platform fee would refuse
 * every order, keyless ones included, with a 503 that reads as temporary. Starting is refused
 * instead, naming the setting (docs/providers.md, "Settings that refuse to start").
 */
function providerTraps(c: z.infer<typeof schema>): string[] {
  if (c.ENGINE !== "providers") return [];
  const enabled = PROVIDERS.filter((p) => c[p.enabledBy]);
  return [
    ...enabled.flatMap((p) => p.traps?.(c) ?? []),
    ...enabled.flatMap((p) => {
      const cap = p.commissionCap(c);
      if (cap.capBps >= c.PLATFORM_FEE_BPS) return [];
      const enable = p.enabledBy;
      if (cap.states)
        return `${enable}=true with ${cap.setting}=${cap.capBps}, below PLATFORM_FEE_BPS=${c.PLATFORM_FEE_BPS}: ${p.label} could not take a single order. Set ${cap.setting} to the commission ${cap.states} (at least ${c.PLATFORM_FEE_BPS}), or set ${enable}=false`;
      return `${enable}=true with PLATFORM_FEE_BPS=${c.PLATFORM_FEE_BPS}, above ${cap.setting}: ${p.label} could not take a single order. Lower PLATFORM_FEE_BPS to ${cap.capBps} or less, or set ${enable}=false`;
    }),
  ];
}

/** ENGINE=providers needs at least one enabled provider, each with its credentials. */
function checkProviders(c: z.infer<typeof schema>) {
  const enabled = PROVIDERS.filter((p) => c[p.enabledBy]);
  const missing = enabled.flatMap((p) => p.credentials.filter((n) => !c[n]));
  if (missing.length) throw new Error(`invalid settings:\n  ENGINE=providers: set ${missing.join(", ")}`);
  if (!enabled.length)
    throw new Error(
      `invalid settings:\n  ENGINE=providers: enable at least one provider (${PROVIDERS.map((p) => p.enabledBy).join(", ")})`,
    );
  const traps = providerTraps(c);
  if (traps.length) throw new Error(`invalid settings:\n${traps.map((t) => `  ${t}`).join("\n")}`);
}
