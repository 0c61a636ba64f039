"use client";

import { useSearchParams } from "next/navigation";
import { useState } from "react";
import { consolePost, qs, useConsoleAction, useConsoleList, useRefresh } from "@/components/console/api";
import { useCan, useMe } from "@/components/console/me";
import { signTypedData } from "@/components/console/sign-typed";
import {
  A,
  Badge,
  Btn,
  ErrorLine,
  inputClass,
  Loading,
  More,
  Panel,
  pick,
  ref,
  show,
  statusTone,
  Table,
  Title,
  when,
} from "@/components/console/ui";

// Withdrawals of every reseller (GET /api/console/withdrawals). One above the approval
// threshold waits in awaiting_approval: a finance operator approves it by signing its terms
// with the wallet (POST .../approval gives the EIP-712 typed data, POST .../approve takes the
// signature), or rejects it with a reason (its amount returns to available).

const STATUSES = ["", "awaiting_approval", "queued", "processing", "sent", "confirmed", "failed", "rejected"];

export function WithdrawalsView() {
  const sp = useSearchParams();
  const [status, setStatus] = useState(sp.get("status") ?? "");
  const focus = sp.get("id");
  const list = useConsoleList<Record<string, unknown>>(`/withdrawals${qs({ status })}`, "withdrawals");
  const can = useCan();
  return (
    <div>
      <Title>Withdrawals</Title>
      <label className="mb-3 flex w-56 flex-col gap-0.5 text-xs text-zinc-600">
        Status
        <select value={status} onChange={(e) => setStatus(e.target.value)} className={inputClass}>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s || "any"}
            </option>
          ))}
        </select>
      </label>
      <Panel title="Withdrawals">
        <Loading q={list} />
        {list.data ? (
          <>
            <Table
              head={["Withdrawal", "Status", "Reseller", "Amount", "USD", "Chain", "To", "Tx", "Requested", ""]}
              empty={!list.rows.length}
              testId="withdrawals"
            >
              {list.rows.map((w) => {
                const id = String(pick(w, "id"));
                const st = show(pick(w, "status"));
                const [rid, rlabel] = ref(pick(w, "reseller", "resellerWallet", "resellerId"));
                return (
                  <tr key={id} data-testid="withdrawal-row" className={focus === id ? "bg-amber-50" : undefined}>
                    <td className="font-mono">{id}</td>
                    <td>
                      <Badge tone={statusTone(st)}>{st}</Badge>
                    </td>
                    <td className="max-w-56">{show(pick(w, "stateReason", "lastError", "rejectionReason"))}</td>
                    <td className="font-mono">{rid ? <A href={`/console/resellers/${encodeURIComponent(rid)}`}>{rlabel}</A> : rlabel}</td>
                    <td className="font-mono whitespace-nowrap">
                      {show(pick(w, "amount"))} {show(pick(w, "asset", "ticker"))}
                    </td>
                    <td className="font-mono">{show(pick(w, "usdValue", "amountUsd"))}</td>
                    <td>{show(pick(w, "chainId", "chain"))}</td>
                    <td className="font-mono">{show(pick(w, "destination", "toAddress"))}</td>
                    <td className="max-w-40 font-mono break-all">{show(pick(w, "txHash"))}</td>
                    <td className="font-mono">{show(pick(w, "attempts"))}</td>
                    <td className="font-mono whitespace-nowrap">
                      {pick(w, "approvedAt")
                        ? `approved ${when(pick(w, "approvedAt"))}`
                        : pick(w, "rejectedAt")
                          ? `rejected ${when(pick(w, "rejectedAt"))}`
                          : "—"}
                    </td>
                    <td className="font-mono whitespace-nowrap">{when(pick(w, "createdAt", "requestedAt"))}</td>
                    <td>
                      {st === "awaiting_approval" && (can("withdrawals.approve") || can("withdrawals.reject")) ? <Decide id={id} /> : null}
                      {st === "queued" && can("withdrawals.retry") ? <Retry id={id} /> : null}
                    </td>
                  </tr>
                );
              })}
            </Table>
            <More next={list.hasNextPage ? "more" : null} onMore={() => list.fetchNextPage()} busy={list.isFetchingNextPage} />
          </>
        ) : null}
      </Panel>
    </div>
  );
}

function Decide({ id }: { id: string }) {
  const can = useCan();
  const me = useMe();
  const base = `/withdrawals/${encodeURIComponent(id)}`;
  const [step, setStep] = useState("");
  const refresh = useRefresh();
  const reject = useConsoleAction<{ reason: string }>({ path: () => `${base}/reject`, refresh: ["/withdrawals", "/treasury"] });
  const [error, setError] = useState<Error | null>(null);

  async function doApprove() {
    setError(null);
    try {
      setStep("Fetching the terms…");
      const answer = await consolePost<{ nonce: string; typedData: string | object }>(`${base}/approval`);
      const typed = typeof answer.typedData === "string" ? answer.typedData : JSON.stringify(answer.typedData);
      setStep("Sign the approval in your wallet…");
      const signature = await signTypedData(me.operator.wallet, typed);
      setStep("Approving…");
      await consolePost(`${base}/approve`, { nonce: answer.nonce, signature });
      await refresh(["/withdrawals", "/treasury"]);
    } catch (e) {
      setError(e instanceof Error ? e : new Error(String(e)));
    } finally {
      setStep("");
    }
  }

  return (
    <div className="flex min-w-72 flex-col gap-1">
      {can("withdrawals.approve") ? (
        <Btn onClick={doApprove} disabled={step !== ""}>
          {step || "Approve with wallet"}
        </Btn>
      ) : null}
      {can("withdrawals.reject") ? (
        <form
          className="flex gap-1"
          aria-label={`Reject ${id}`}
          onSubmit={(e) => {
            e.preventDefault();
            reject.mutate({ reason: String(new FormData(e.currentTarget).get("reason") ?? "").trim() });
          }}
        >
          <input name="reason" required placeholder="reason" aria-label="Reason" className={`${inputClass} flex-1`} />
          <Btn type="submit" tone="danger" disabled={reject.isPending}>
            Reject
          </Btn>
        </form>
      ) : null}
      <ErrorLine error={error ?? reject.error} />
    </div>
  );
}

/** A queued withdrawal (the hot wallet was too poor) checked again now, e.g. after a top-up. */
function Retry({ id }: { id: string }) {
  const retry = useConsoleAction<void>({
    path: () => `/withdrawals/${encodeURIComponent(id)}/retry`,
    body: () => ({}),
    refresh: ["/withdrawals", "/treasury"],
  });
  return (
    <div>
      <Btn tone="secondary" onClick={() => retry.mutate()} disabled={retry.isPending}>
        Retry now
      </Btn>
      <ErrorLine error={retry.error} />
    </div>
  );
}
