import "server-only";
import path from "node:path";
import { z } from "zod";

// Every setting the product reads, in one place, validated once. The README's settings
// table mirrors this schema.
const bool = z.enum(["true", "false", "1", "0", "yes", "no"]).transform((v) => v === "true" || v === "1" || v === "yes");
const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);

const schema = z.object({
  PORT: int(3000, 0),
  HOST: z.string().default("0.0.0.0"),
  /** Public origin of the app (scheme://host[:port]); SIWE messages must name it. */
  APP_URL: z.string().url().optional(),
  DATABASE_URL: z.string().default("file:./data/reseller.db"),
  REDIS_URL: z.string().optional(),
  /** memory | redis | postgres. Default: redis when REDIS_URL is set, postgres on PostgreSQL, else memory. */
  RATE_LIMIT_STORE: z.enum(["memory", "redis", "postgres"]).optional(),
  RATE_LIMIT_PUBLIC_PER_MINUTE: int(60, 1),
  RATE_LIMIT_PUBLIC_CREATES_PER_DAY: int(100, 1),
  RATE_LIMIT_KEY_PER_MINUTE: int(300, 1),
  /** Sign-in nonces a client IP may ask for per minute (the dashboard's only unauthenticated write). */
  RATE_LIMIT_SIGNIN_PER_MINUTE: int(30, 1),
  /** Honour X-Forwarded-For for the client IP (only behind a proxy you control). */
  TRUST_PROXY: bool.default(false),
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
  // ENGINE=providers (docs/providers.md). Each provider: enabled, credentials, base URL.
  /** How long an estimate waits for the providers' quotes; those not in by then are skipped. */
  PROVIDERS_QUOTE_DEADLINE_MS: int(2500, 50),
  /** Longest wait for any one upstream HTTP request. */
  PROVIDERS_HTTP_TIMEOUT_MS: int(10_000, 50),
  /** How long a quote is reused for its pair, amount band and commission. */
  PROVIDERS_QUOTE_CACHE_SECONDS: z.coerce.number().min(0).default(30),
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
  CHANGENOW_ENABLED: bool.default(false),
  CHANGENOW_API_KEY: z.string().optional(),
  CHANGENOW_API_URL: z.string().url().default("https://api.changenow.io/v2"),
  /** The partner share set on the ChangeNOW account (bps); orders go there only when it covers fee + markup. */
  CHANGENOW_ACCOUNT_COMMISSION_BPS: int(0, 0),
  CHANGENOW_QUOTES_PER_MINUTE: int(1500, 1),
  SIDESHIFT_ENABLED: bool.default(false),
  SIDESHIFT_SECRET: z.string().optional(),
  SIDESHIFT_AFFILIATE_ID: z.string().optional(),
  SIDESHIFT_API_URL: z.string().url().default("https://sideshift.ai/api/v2"),
  SIDESHIFT_QUOTES_PER_MINUTE: int(20, 1),
  FIXEDFLOAT_ENABLED: bool.default(false),
  FIXEDFLOAT_API_KEY: z.string().optional(),
  FIXEDFLOAT_API_SECRET: z.string().optional(),
  FIXEDFLOAT_REFCODE: z.string().optional(),
  FIXEDFLOAT_API_URL: z.string().url().default("https://ff.io/api/v2"),
  /** Highest afftax (fee + markup, bps) sent to FixedFloat; its allowed range is undocumented. */
  FIXEDFLOAT_MAX_AFFTAX_BPS: int(300, 0),
  FIXEDFLOAT_QUOTES_PER_MINUTE: int(200, 1),
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
  /** Serve the dashboard (Next.js) from this process; false for API-only instances. */
  SERVE_DASHBOARD: bool.default(true),
  MAX_BODY_BYTES: int(16 * 1024, 256),
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
});

/** Every setting's name, for the README's table (a test keeps them in step). */
export const SETTING_NAMES = Object.keys(schema.shape);

export type Config = z.infer<typeof schema> & { databaseProvider: "sqlite" | "postgresql"; sqlitePath: string | null };

let cached: Config | null = null;

export function getConfig(): Config {
  if (cached) return cached;
  const parsed = schema.safeParse(process.env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n");
    throw new Error(`invalid settings:\n${lines}`);
  }
  const c = parsed.data;
  if (c.ENGINE === "providers") checkProviders(c);
  const provider = /^postgres(ql)?:\/\//.test(c.DATABASE_URL) ? "postgresql" : "sqlite";
  if (provider === "sqlite" && !c.DATABASE_URL.startsWith("file:"))
    throw new Error("DATABASE_URL must be file:<path> (SQLite) or postgres://... (PostgreSQL)");
  const sqlitePath = provider === "sqlite" ? path.resolve(c.DATABASE_URL.slice("file:".length)) : null;
  cached = { ...c, databaseProvider: provider, sqlitePath };
  return cached;
}

/** ENGINE=providers needs at least one enabled provider, each with its credentials. */
function checkProviders(c: z.infer<typeof schema>) {
  const missing: string[] = [];
  const need = (enabled: boolean, names: (keyof typeof c)[]) => {
    if (enabled) for (const n of names) if (!c[n]) missing.push(n);
  };
  need(c.CHANGENOW_ENABLED, ["CHANGENOW_API_KEY"]);
  need(c.SIDESHIFT_ENABLED, ["SIDESHIFT_SECRET", "SIDESHIFT_AFFILIATE_ID"]);
  need(c.FIXEDFLOAT_ENABLED, ["FIXEDFLOAT_API_KEY", "FIXEDFLOAT_API_SECRET"]);
  if (missing.length) throw new Error(`invalid settings:\n  ENGINE=providers: set ${missing.join(", ")}`);
  if (!c.CHANGENOW_ENABLED && !c.SIDESHIFT_ENABLED && !c.FIXEDFLOAT_ENABLED)
    throw new Error(
      "invalid settings:\n  ENGINE=providers: enable at least one provider (CHANGENOW_ENABLED, SIDESHIFT_ENABLED, FIXEDFLOAT_ENABLED)",
    );
}

/** Tests and the CLI change process.env before use; let them re-read it. */
export function resetConfigForTests() {
  cached = null;
}
