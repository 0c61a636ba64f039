import "server-only";
import { parseArgs } from "node:util";
import { describeMarkupRange, getConfig, markupRange } from "@/lib/config";
import { closeDb, getDb } from "@/lib/db/client";
import { migrate } from "@/lib/db/migrate";
import { createAdapters } from "@/lib/engine/providers/engine";
import { syncProvider } from "@/lib/engine/providers/sync";
import { createApiKey, listApiKeys, revokeApiKey } from "@/lib/keys/api-keys";
import { checkLedger } from "@/lib/ledger/check";
import { getBalances } from "@/lib/ledger/ledger";
import { CLI_ACTOR } from "@/lib/operators/audit";
import { addOperator, findActiveOperator, listOperators, removeOperator } from "@/lib/operators/operators";
import { listOrphanIntents } from "@/lib/orders/intents";
import { flagStuckOrders, listStuckOrders } from "@/lib/orders/stuck";
import { getMapping } from "@/lib/providers/mapping";
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

// The operator's commands (npm run cli -- <command>; docs/operations.md): part of the app
// (createApp's cli(), lib/app/create-app.ts), so a test runs them in process, on an app with the
// settings it needs. scripts/cli.ts is the program: it builds the app from the environment,
// runs one command and prints what it wrote. Output goes to `io`, never to the console here.
export const USAGE = `usage: npm run cli -- <command> [options]

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
  operator:add <wallet> <role>                add a console operator (admin, support, finance, viewer), or change its role
  operator:list                               the console's operators and their roles
  operator:remove <wallet>                    remove a console operator: its sessions end (not the last admin)
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

async function main(args: string[], io: CliIo): Promise<number> {
  let code = 0;
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
  if (!cmd || values.help) {
    io.out(USAGE);
    return 0;
  }
  const db = getDb();
  if (cmd !== "migrate") await migrate(getConfig().DATABASE_URL);
  switch (cmd) {
    case "migrate": {
      const r = await migrate(getConfig().DATABASE_URL);
      io.out(r.applied.length ? `applied: ${r.applied.join(", ")}` : "no pending migrations");
      break;
    }
    case "operator:add": {
      if (!a || !b) throw new Error("a wallet address and a role (admin, support, finance, viewer) are required");
      const o = await addOperator(db, { walletAddress: a, role: b, by: CLI_ACTOR });
      io.out(`operator ${o.id}  wallet ${o.wallet}  role ${o.role}`);
      break;
    }
    case "operator:list": {
      const ops = await listOperators(db);
      if (!ops.length) io.out("no operators (add one: operator:add <wallet> admin, or set OPERATOR_ADMIN_WALLET)");
      for (const o of ops) io.out(`operator ${o.id}  wallet ${o.wallet}  role ${o.role}  since ${o.createdAt}`);
      break;
    }
    case "operator:remove": {
      if (!a) throw new Error("a wallet address is required");
      const o = await findActiveOperator(db, { walletAddress: a });
      if (!o) throw new Error(`no active operator ${a}`);
      await removeOperator(db, { operatorId: o.id, by: CLI_ACTOR });
      io.out(`removed operator ${o.walletAddress}: its console sessions ended`);
      break;
    }
    case "reseller:create": {
      if (!a) throw new Error("a wallet address is required");
      // Checked before anything is written: a refused markup creates no reseller.
      const r = await createReseller(db, { walletAddress: a, markupBps: values.markup === undefined ? undefined : bps(values.markup) });
      io.out(`reseller ${r.id}  wallet ${r.walletAddress}  markup ${r.markupBps} bps`);
      break;
    }
    case "reseller:show": {
      const r = await findReseller(a);
      const revoked = r.revokedAt ? `  REVOKED ${r.revokedAt.toISOString()}` : "";
      io.out(`reseller ${r.id}  wallet ${r.walletAddress}  markup ${r.markupBps} bps  since ${r.createdAt.toISOString()}${revoked}`);
      for (const k of (await listApiKeys(db, { resellerId: r.id })).items) io.out(`  key ${k.id}  ${k.prefix}...  ${k.name}`);
      for (const x of await getBalances(db, r.id))
        io.out(`  ${x.currency}: pending ${x.pending}, available ${x.available}, reserved ${x.reserved}`);
      break;
    }
    case "reseller:revoke": {
      const r = await findReseller(a);
      const { keysRevoked } = await revokeReseller(db, { resellerId: r.id });
      io.out(`revoked ${r.walletAddress}: dashboard sessions ended, ${keysRevoked} API key(s) revoked, sign-in refused`);
      break;
    }
    case "reseller:restore": {
      const r = await findReseller(a);
      await restoreReseller(db, { resellerId: r.id });
      io.out(`restored ${r.walletAddress}: it can sign in again (its old keys stay revoked)`);
      break;
    }
    case "sessions:end": {
      const r = await findReseller(a);
      await endAllSessions(db, { resellerId: r.id });
      io.out(`ended every dashboard session of ${r.walletAddress}`);
      break;
    }
    case "markup:set": {
      const r = await findReseller(a);
      const u = await setMarkup(db, { resellerId: r.id, markupBps: bps(b) });
      io.out(`markup of ${u.walletAddress} is now ${u.markupBps} bps (new orders only)`);
      const range = markupRange(getConfig());
      const per = describeMarkupRange(range);
      io.out(`markups orders can be routed at now: 0 to ${range.maxBps} bps${per ? ` (${per})` : ""}`);
      break;
    }
    case "key:create": {
      const r = await findReseller(a);
      const { key, apiKey } = await createApiKey(db, { resellerId: r.id, name: values.name ?? "default" });
      io.out(
        `key id ${apiKey.id} (${apiKey.name}) for ${r.walletAddress}\n\n  ${key}\n\nStore it now: it is shown once and only its hash is kept.`,
      );
      break;
    }
    case "key:list": {
      const r = await findReseller(a);
      // Every active key, a page at a time (at most MAX_ACTIVE_KEYS, unless made before the cap).
      let page = await listApiKeys(db, { resellerId: r.id });
      if (!page.items.length) io.out("no active keys");
      for (;;) {
        for (const k of page.items)
          io.out(
            `${k.id}  ${k.prefix}...  ${k.name}  created ${k.createdAt.toISOString()}  last used ${k.lastUsedAt?.toISOString() ?? "never"}`,
          );
        if (!page.older) break;
        page = await listApiKeys(db, { resellerId: r.id, older: page.older });
      }
      break;
    }
    case "key:revoke": {
      if (!a) throw new Error("a key id or prefix is required");
      const k = await db.apiKey.findFirst({ where: { OR: [{ id: a }, { prefix: a }, { prefix: a.replace(/\.\.\.$/, "") }] } });
      if (!k) throw new Error(`no key ${a}`);
      await revokeApiKey(db, { resellerId: k.resellerId, keyId: k.id });
      io.out(`revoked ${k.prefix}... (${k.name})`);
      break;
    }
    case "balances": {
      const r = await findReseller(a);
      const rows = await getBalances(db, r.id);
      if (!rows.length) io.out("no profit yet");
      for (const x of rows)
        io.out(
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
      io.out(
        `${report.mode} check${since}: read ${s.entries} entries, ${s.lines} lines, ${s.journals} journals, ${s.orders} orders, ${s.withdrawals} withdrawals, ${s.balances} balances`,
      );
      if (report.ok) {
        const cp = report.checkpoint;
        io.out(
          "ledger ok: every invariant holds" +
            (!cp ? "" : "skipped" in cp ? `; no checkpoint written (${cp.skipped})` : `; checkpoint ${cp.id} written`),
        );
        break;
      }
      // The first violation is the one to look at; the others (at most 20) often follow from it.
      for (const v of report.violations) io.err(`ledger VIOLATION (${v.invariant}): ${v.message}`);
      code = 1;
      break;
    }
    case "upstream:orphans": {
      const orphans = await listOrphanIntents(db);
      if (!orphans.length) io.out("no upstream exchange without an order");
      for (const i of orphans)
        io.out(
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
        io.out(`${l.check.padEnd(10)} ${l.name}: books ${l.books}${l.actual === null ? "" : `, actual ${l.actual}`}`);
      if (report.ok) {
        io.out("reconciled: no difference");
        break;
      }
      for (const d of report.differences) io.err(`DIFFERENCE ${d}`);
      code = 1;
      break;
    }
    case "treasury:deposit": {
      if (!a || !b) throw new Error("usage: treasury:deposit <asset> <amount>");
      await recordHotWalletDeposit(db, { asset: a, amount: b });
      io.out(`booked ${b} ${a} into the hot wallet's treasury account`);
      break;
    }
    case "orders:stuck": {
      await flagStuckOrders(db, { now: new Date(), afterMinutes: getConfig().PROVIDERS_STUCK_AFTER_MINUTES });
      const stuck = await listStuckOrders(db);
      if (!stuck.length) io.out("no stuck orders");
      for (const o of stuck)
        io.out(
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
      for (const line of await hotWalletLines()) io.out(line);
      const resellerId = a ? (await findReseller(a)).id : undefined;
      const rows = await listWithdrawals(db, { resellerId, take: 200 });
      if (!rows.length) io.out("no withdrawals");
      for (const w of rows)
        io.out(
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
      io.out(`withdrawal ${w.id} is due now; the worker pays it on its next pass if the hot wallet can`);
      break;
    }
    case "providers:sync": {
      const adapters = createAdapters(getConfig());
      if (!adapters.length) throw new Error("no provider has credentials set (see docs/configuration.md)");
      for (const adapter of adapters) {
        try {
          const r = await syncProvider(adapter, getMapping(adapter.name), AbortSignal.timeout(getConfig().PROVIDERS_HTTP_TIMEOUT_MS));
          io.out(`${r.provider} (mapping v${r.mappingVersion}): ${r.offered.length} offered now`);
          if (r.suspended.length) io.out(`  listed but switched off: ${r.suspended.join(", ")}`);
          if (r.unknown.length) {
            io.out(`  mapped but not listed (fix the mapping file): ${r.unknown.join(", ")}`);
            code = 1;
          }
          for (const c of r.candidates)
            io.out(`  not mapped, the provider lists ${c.ticker} as: ${c.assets.map((a) => JSON.stringify(a)).join(" ")}`);
        } catch (e) {
          io.err(`${adapter.name}: ${e instanceof Error ? e.message : String(e)}`);
          code = 1;
        }
      }
      break;
    }
    default:
      io.err(`unknown command ${cmd}\n\n${USAGE}`);
      code = 2;
  }
  return code;
}

/** Where a command writes: a line of output, a line of error. */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

/**
 * Runs one command of the current app and answers its exit code (0, 1 on failure, 2 for an
 * unknown command), then closes what the command opened (its database client), so that the
 * program exits as soon as it is done (tests/cli/cli.test.ts checks that nothing is left open).
 */
export async function runCliCommand(args: string[], io: CliIo): Promise<number> {
  try {
    return await main(args, io);
  } catch (e) {
    io.err(`error: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  } finally {
    // closeDb, not $disconnect: on PostgreSQL the pool is the app's own, and an open pool
    // kept every command alive for its 10 s idle timeout after it had finished.
    await closeDb();
  }
}
