import { realpathSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { describeMarkupRange, getConfig, markupRange } from "@/lib/config";
import { closeDb, getDb } from "@/lib/db/client";
import { migrate } from "@/lib/db/migrate";
import { createAdapters } from "@/lib/engine/providers/engine";
import { getMapping } from "@/lib/engine/providers/mapping";
import { syncProvider } from "@/lib/engine/providers/sync";
import { createApiKey, listApiKeys, revokeApiKey } from "@/lib/keys/api-keys";
import { checkLedger } from "@/lib/ledger/check";
import { getBalances } from "@/lib/ledger/ledger";
import { listOrphanIntents } from "@/lib/orders/intents";
import { flagStuckOrders, listStuckOrders } from "@/lib/orders/stuck";
import {
  createReseller,
  endAllSessions,
  getResellerById,
  getResellerByWallet,
  restoreReseller,
  revokeReseller,
  setMarkup,
} from "@/lib/resellers/resellers";
import { hotWalletHealth } from "@/lib/withdrawals/health";
import { reconcile, recordHotWalletDeposit } from "@/lib/withdrawals/reconcile";
import { getPayoutSenders } from "@/lib/withdrawals/sender";
import { listWithdrawals, retryWithdrawal } from "@/lib/withdrawals/withdrawals";

// The operator's command line: a thin adapter over lib/. Run with `npm run cli -- <command>`,
// which runs its build, dist/cli.mjs (scripts/build-server.mjs).
const USAGE = `usage: npm run cli -- <command> [options]

  reseller:create <wallet> [--markup <bps>]   create (or find) the reseller of an Ethereum wallet
  reseller:show <wallet|resellerId>           show a reseller, its keys and its profit balances
  reseller:revoke <wallet|resellerId>         end its dashboard sessions, revoke its keys, refuse its sign-in
  reseller:restore <wallet|resellerId>        allow a revoked reseller to sign in again (keys stay revoked)
  sessions:end <wallet|resellerId>            sign a reseller out of the dashboard everywhere
  markup:set <wallet|resellerId> <bps>        set the markup in basis points (0 to what the providers route, at most MARKUP_CAP_BPS)
  key:create <wallet|resellerId> [--name <n>] issue an API key; it is printed once, never stored
  key:list <wallet|resellerId>                list active keys (prefix, name, created, last used)
  key:revoke <keyId|keyPrefix>                revoke a key at once
  balances <wallet|resellerId>                profit per currency: pending, available and reserved
  ledger:check [--full]                       check every ledger invariant; prints the violations, exits 1 on any. By default
                                              incremental: only what is new since the last clean check (its checkpoint; a
                                              full check when there is none); --full reads every row, and finds rows changed
                                              by hand below the checkpoint too (run it now and then). A clean check writes
                                              the next checkpoint
  reconcile [--asset <ticker>]                the books against the world: treasury vs the hot wallet on chain, owed to
                                              resellers vs treasury (USD, live prices), commission per provider; exits 1 on a difference
  treasury:deposit <asset> <amount>           book money put into the hot wallet from outside (a top-up)
  orders:stuck                                flag and list upstream orders still open past PROVIDERS_STUCK_AFTER_MINUTES
  upstream:orphans                            list upstream exchanges no order points to (after a crash: abandoned, or unknown)
  withdrawals:list [wallet|resellerId]        the hot wallet's balances (PAYOUT_LOW_BALANCE), then the latest withdrawals
                                              (all resellers, or one): state, amounts, transaction, network fee
  withdrawals:retry <id>                      check a withdrawal stuck in queued again now (after topping up the hot wallet)
  providers:sync                              ask each configured provider what it offers now, against its mapping file
  migrate                                     apply pending database migrations`;

async function findReseller(ref: string | undefined) {
  if (!ref) throw new Error("a wallet address or reseller id is required");
  const db = getDb();
  const r = ref.startsWith("0x") ? await getResellerByWallet(db, { walletAddress: ref }) : await getResellerById(db, { resellerId: ref });
  if (!r) throw new Error(`no reseller ${ref} (create it with reseller:create)`);
  return r;
}

const bps = (s: string | undefined) => {
  if (!s || !/^\d+$/.test(s)) throw new Error("basis points must be a whole number, e.g. 150 for 1.5%");
  return Number(s);
};

/** The hot wallet's balance of each payout asset of each payout chain against its low-balance threshold, one line each. */
async function hotWalletLines(): Promise<string[]> {
  if (getConfig().PAYOUT_SENDER !== "evm") return ["hot wallet: none (PAYOUT_SENDER=simulated, nothing is paid on-chain)"];
  const lines: string[] = [];
  for (const sender of getPayoutSenders())
    try {
      for (const r of await hotWalletHealth(sender))
        lines.push(
          `hot wallet ${r.address} on chain ${r.chainId}: ${r.balance} ${r.asset}` +
            (r.threshold === null ? "" : r.low ? `  LOW, below ${r.threshold}: top it up` : `  (threshold ${r.threshold})`),
        );
    } catch (e) {
      lines.push(
        `hot wallet ${sender.address} on chain ${sender.chainId}: balance not read (${e instanceof Error ? e.message.split("\n")[0] : String(e)})`,
      );
    }
  return lines;
}

async function main(args: string[]) {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      markup: { type: "string" },
      name: { type: "string" },
      asset: { type: "string" },
      full: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [cmd, a, b] = positionals;
  if (!cmd || values.help) return console.log(USAGE);
  const db = getDb();
  if (cmd !== "migrate") await migrate(getConfig().DATABASE_URL);
  switch (cmd) {
    case "migrate": {
      const r = await migrate(getConfig().DATABASE_URL);
      console.log(r.applied.length ? `applied: ${r.applied.join(", ")}` : "no pending migrations");
      break;
    }
    case "reseller:create": {
      if (!a) throw new Error("a wallet address is required");
      // Checked before anything is written: a refused markup creates no reseller.
      const r = await createReseller(db, { walletAddress: a, markupBps: values.markup === undefined ? undefined : bps(values.markup) });
      console.log(`reseller ${r.id}  wallet ${r.walletAddress}  markup ${r.markupBps} bps`);
      break;
    }
    case "reseller:show": {
      const r = await findReseller(a);
      const revoked = r.revokedAt ? `  REVOKED ${r.revokedAt.toISOString()}` : "";
      console.log(`reseller ${r.id}  wallet ${r.walletAddress}  markup ${r.markupBps} bps  since ${r.createdAt.toISOString()}${revoked}`);
      for (const k of await listApiKeys(db, { resellerId: r.id })) console.log(`  key ${k.id}  ${k.prefix}...  ${k.name}`);
      for (const x of await getBalances(db, r.id))
        console.log(`  ${x.currency}: pending ${x.pending}, available ${x.available}, reserved ${x.reserved}`);
      break;
    }
    case "reseller:revoke": {
      const r = await findReseller(a);
      const { keysRevoked } = await revokeReseller(db, { resellerId: r.id });
      console.log(`revoked ${r.walletAddress}: dashboard sessions ended, ${keysRevoked} API key(s) revoked, sign-in refused`);
      break;
    }
    case "reseller:restore": {
      const r = await findReseller(a);
      await restoreReseller(db, { resellerId: r.id });
      console.log(`restored ${r.walletAddress}: it can sign in again (its old keys stay revoked)`);
      break;
    }
    case "sessions:end": {
      const r = await findReseller(a);
      await endAllSessions(db, { resellerId: r.id });
      console.log(`ended every dashboard session of ${r.walletAddress}`);
      break;
    }
    case "markup:set": {
      const r = await findReseller(a);
      const u = await setMarkup(db, { resellerId: r.id, markupBps: bps(b) });
      console.log(`markup of ${u.walletAddress} is now ${u.markupBps} bps (new orders only)`);
      const range = markupRange(getConfig());
      const per = describeMarkupRange(range);
      console.log(`markups orders can be routed at now: 0 to ${range.maxBps} bps${per ? ` (${per})` : ""}`);
      break;
    }
    case "key:create": {
      const r = await findReseller(a);
      const { key, apiKey } = await createApiKey(db, { resellerId: r.id, name: values.name ?? "default" });
      console.log(
        `key id ${apiKey.id} (${apiKey.name}) for ${r.walletAddress}\n\n  ${key}\n\nStore it now: it is shown once and only its hash is kept.`,
      );
      break;
    }
    case "key:list": {
      const r = await findReseller(a);
      const keys = await listApiKeys(db, { resellerId: r.id });
      if (!keys.length) console.log("no active keys");
      for (const k of keys)
        console.log(
          `${k.id}  ${k.prefix}...  ${k.name}  created ${k.createdAt.toISOString()}  last used ${k.lastUsedAt?.toISOString() ?? "never"}`,
        );
      break;
    }
    case "key:revoke": {
      if (!a) throw new Error("a key id or prefix is required");
      const k = await db.apiKey.findFirst({ where: { OR: [{ id: a }, { prefix: a }, { prefix: a.replace(/\.\.\.$/, "") }] } });
      if (!k) throw new Error(`no key ${a}`);
      await revokeApiKey(db, { resellerId: k.resellerId, keyId: k.id });
      console.log(`revoked ${k.prefix}... (${k.name})`);
      break;
    }
    case "balances": {
      const r = await findReseller(a);
      const rows = await getBalances(db, r.id);
      if (!rows.length) console.log("no profit yet");
      for (const x of rows)
        console.log(
          `${x.currency.padEnd(12)} pending ${x.pending.padStart(20)}   available ${x.available.padStart(20)}   reserved ${x.reserved.padStart(20)}`,
        );
      break;
    }
    case "ledger:check": {
      // Incremental by default: run routinely (a cron), its cost is the traffic since the last
      // check, not the ledger's age; --full is the audit that trusts no checkpoint.
      const report = await checkLedger(db, { mode: values.full ? "full" : "incremental", writeCheckpoint: true });
      const s = report.stats;
      const since = report.from
        ? ` since checkpoint ${report.from.id} (entry ${report.from.lastEntryId}, line ${report.from.lastLineId})`
        : "";
      console.log(
        `${report.mode} check${since}: read ${s.entries} entries, ${s.lines} lines, ${s.journals} journals, ${s.orders} orders, ${s.withdrawals} withdrawals, ${s.balances} balances`,
      );
      if (report.ok) {
        const cp = report.checkpoint;
        console.log(
          "ledger ok: every invariant holds" +
            (!cp ? "" : "skipped" in cp ? `; no checkpoint written (${cp.skipped})` : `; checkpoint ${cp.id} written`),
        );
        break;
      }
      // The first violation is the one to look at; the others (at most 20) often follow from it.
      for (const v of report.violations) console.error(`ledger VIOLATION (${v.invariant}): ${v.message}`);
      process.exitCode = 1;
      break;
    }
    case "upstream:orphans": {
      const orphans = await listOrphanIntents(db);
      if (!orphans.length) console.log("no upstream exchange without an order");
      for (const i of orphans)
        console.log(
          [
            i.outcome,
            i.provider,
            i.upstreamId ? `exchange ${i.upstreamId}` : `exchange id unknown, external id ${i.externalId ?? "- (none sent)"}`,
            `order ${i.orderId}`,
            `at ${i.createdAt.toISOString()}`,
          ].join("  "),
        );
      break;
    }
    case "reconcile": {
      const report = await reconcile(db, values.asset ? { assets: [values.asset] } : {});
      for (const l of report.lines)
        console.log(`${l.check.padEnd(10)} ${l.name}: books ${l.books}${l.actual === null ? "" : `, actual ${l.actual}`}`);
      if (report.ok) {
        console.log("reconciled: no difference");
        break;
      }
      for (const d of report.differences) console.error(`DIFFERENCE ${d}`);
      process.exitCode = 1;
      break;
    }
    case "treasury:deposit": {
      if (!a || !b) throw new Error("usage: treasury:deposit <asset> <amount>");
      await recordHotWalletDeposit(db, { asset: a, amount: b });
      console.log(`booked ${b} ${a} into the hot wallet's treasury account`);
      break;
    }
    case "orders:stuck": {
      await flagStuckOrders(db, { now: new Date(), afterMinutes: getConfig().PROVIDERS_STUCK_AFTER_MINUTES });
      const stuck = await listStuckOrders(db);
      if (!stuck.length) console.log("no stuck orders");
      for (const o of stuck)
        console.log(
          [
            o.id,
            `${o.provider ?? "-"}:${o.upstreamId ?? "-"}`,
            o.status,
            `upstream ${o.upstreamStatus ?? "-"}${o.stateReason ? ` (${o.stateReason})` : ""}`,
            `created ${o.createdAt.toISOString()}`,
            `flagged ${o.stuckAt?.toISOString()}`,
            o.attempts ? `${o.attempts} failed reads, last: ${o.lastError}` : "",
          ]
            .filter(Boolean)
            .join("  "),
        );
      break;
    }
    case "withdrawals:list": {
      for (const line of await hotWalletLines()) console.log(line);
      const resellerId = a ? (await findReseller(a)).id : undefined;
      const rows = await listWithdrawals(db, { resellerId, take: 200 });
      if (!rows.length) console.log("no withdrawals");
      for (const w of rows)
        console.log(
          [
            w.id,
            w.status.padEnd(10),
            `${w.amount} ${w.asset}`,
            `to ${w.destination}`,
            `from ${w.legs.map((l) => `${l.amount} ${l.currency} @${l.rate}`).join(" + ")}`,
            `created ${w.createdAt}`,
            w.txHash ? `tx ${w.txHash}` : "",
            w.networkFee !== null ? `network fee ${w.networkFee} wei` : "",
            w.reorgs ? `reorganised out ${w.reorgs}x` : "",
            w.stateReason ? `(${w.stateReason})` : "",
          ]
            .filter(Boolean)
            .join("  "),
        );
      break;
    }
    case "withdrawals:retry": {
      if (!a) throw new Error("a withdrawal id is required");
      const w = await retryWithdrawal(db, { withdrawalId: a });
      console.log(`withdrawal ${w.id} is due now; the worker pays it on its next pass if the hot wallet can`);
      break;
    }
    case "providers:sync": {
      const adapters = createAdapters(getConfig());
      if (!adapters.length) throw new Error("no provider has credentials set (see docs/configuration.md)");
      for (const adapter of adapters) {
        try {
          const r = await syncProvider(adapter, getMapping(adapter.name), AbortSignal.timeout(getConfig().PROVIDERS_HTTP_TIMEOUT_MS));
          console.log(`${r.provider} (mapping v${r.mappingVersion}): ${r.offered.length} offered now`);
          if (r.suspended.length) console.log(`  listed but switched off: ${r.suspended.join(", ")}`);
          if (r.unknown.length) {
            console.log(`  mapped but not listed (fix the mapping file): ${r.unknown.join(", ")}`);
            process.exitCode = 1;
          }
          for (const c of r.candidates)
            console.log(`  not mapped, the provider lists ${c.ticker} as: ${c.assets.map((a) => JSON.stringify(a)).join(" ")}`);
        } catch (e) {
          console.error(`${adapter.name}: ${e instanceof Error ? e.message : String(e)}`);
          process.exitCode = 1;
        }
      }
      break;
    }
    default:
      console.error(`unknown command ${cmd}\n\n${USAGE}`);
      process.exitCode = 2;
  }
}

/**
 * Runs one command and sets the exit code, then closes what the command opened, so that the
 * process exits as soon as it is done (tests/cli/cli.test.ts checks that nothing is left open).
 */
export function runCliCommand(args: string[]): Promise<void> {
  return (
    main(args)
      .catch((e) => {
        console.error(`error: ${e instanceof Error ? e.message : String(e)}`);
        process.exitCode = 1;
      })
      // closeDb, not $disconnect: on PostgreSQL the pool is the process's own, and an open pool
      // kept every command alive for its 10 s idle timeout after it had finished.
      .finally(() => closeDb())
  );
}

// As a program (dist/cli.mjs); a test imports runCliCommand instead. The real path: Node's
// loader names a module by it, while argv keeps a symlinked folder as it was typed.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) void runCliCommand(process.argv.slice(2));
