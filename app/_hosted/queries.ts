"use client";

import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState } from "react";
import { type AddressCheck, ApiError, checkAddress, getEstimate, getOrder, type HostedConfig, type HostedOrderView } from "./api";
import { AMOUNT_RE } from "./messages";

// The exchange page's server state in react-query, as the dashboard's is: the estimate and
// the address checks are queries on a debounced key (a new key is a new request; an answer
// for an old key is never shown for a new one), the order's status a polled query. Creating
// the order and the sandbox's deposit are server actions (./actions.ts), which work without
// JavaScript too; these only make the page livelier when it runs.

/** `value` once it has stayed the same (compared as JSON) for `ms`; the same object until then. */
export function useDebounced<T>(value: T, ms: number): T {
  const key = JSON.stringify(value);
  const [v, setV] = useState(key);
  useEffect(() => {
    const t = setTimeout(() => setV(key), ms);
    return () => clearTimeout(t);
  }, [key, ms]);
  return useMemo(() => JSON.parse(v) as T, [v]);
}

const hostedKeys = {
  estimate: (cfg: HostedConfig, q: object) => ["hosted", "estimate", cfg.r, cfg.w, q] as const,
  address: (currency: string, address: string, extraId: string) => ["hosted", "address", currency, address, extraId] as const,
  order: (id: string) => ["hosted", "order", id] as const,
};

/**
 * The estimate of what the user gets: asked again when the input settles, every 15 s on a
 * floating rate, and when refresh() is called (a fixed quote's countdown ended). The last
 * estimate stays shown while the next one loads.
 */
export function useEstimate(
  cfg: HostedConfig,
  input: { from: string; to: string; amount: string; mode: "send" | "receive"; fixed: boolean },
) {
  const q = useDebounced({ ...input, amount: input.amount.trim() }, 350);
  const valid = AMOUNT_RE.test(q.amount) && Number(q.amount) !== 0;
  const query = useQuery({
    queryKey: hostedKeys.estimate(cfg, q),
    queryFn: () =>
      getEstimate(cfg, {
        from: q.from,
        to: q.to,
        ...(q.mode === "send" ? { amount: q.amount } : { toAmount: q.amount }),
        rateType: q.fixed ? "fixed" : "floating",
      }),
    enabled: valid,
    placeholderData: keepPreviousData,
    refetchInterval: q.fixed ? false : 15_000,
    refetchOnWindowFocus: false,
    retry: false,
  });
  const estimate = valid && !query.isError ? (query.data ?? null) : null;
  // The refusal as the API gave it (code and details); the form words it (./messages.ts).
  const error: ApiError | "amount" | null = !valid ? (q.amount ? "amount" : null) : query.isError ? (query.error as ApiError) : null;
  return { estimate, error, refresh: query.refetch, settled: q };
}

/** An address (and extra id) checked for a currency as it is typed; null while empty or unchecked. */
export function useAddressCheck(currency: string, address: string, extraId = ""): AddressCheck | null {
  const typed = useDebounced({ currency, address: address.trim(), extraId: extraId.trim() }, 300);
  const query = useQuery({
    queryKey: hostedKeys.address(typed.currency, typed.address, typed.extraId),
    queryFn: () => checkAddress(typed.currency, typed.address, typed.extraId || undefined),
    enabled: typed.address !== "",
    placeholderData: keepPreviousData,
    staleTime: Number.POSITIVE_INFINITY,
    refetchOnWindowFocus: false,
    retry: false,
  });
  return typed.address && !query.isError ? (query.data ?? null) : null;
}

const FINAL = ["finished", "failed"];

/**
 * An order's status, polled with its ETag (a 304 keeps the order shown) as often as Poll-After
 * says (1 to 10 s), every 10 s after an error, and no more once the order is final or unknown
 * (a 404: the link's secret is wrong). The sandbox's deposit (useSandboxDeposit) writes its
 * answer here.
 */
export function useHostedOrder(id: string, token: string, initial: HostedOrderView | null) {
  const client = useQueryClient();
  const etag = useRef<string | null>(null);
  const pollAfter = useRef<number | null>(null);
  const key = hostedKeys.order(id);
  return useQuery({
    queryKey: key,
    queryFn: async () => {
      const r = await getOrder(id, token, etag.current);
      pollAfter.current = r.pollAfter;
      if (r.order) {
        etag.current = r.etag;
        return r.order;
      }
      // 304: unchanged since the ETag, which only an order already here can have given.
      return client.getQueryData<HostedOrderView>(key) ?? null;
    },
    initialData: initial ?? undefined,
    // Read at once on mount, even with the order its creation answered.
    staleTime: 0,
    retry: false,
    refetchOnWindowFocus: false,
    refetchInterval: (q) => {
      if (q.state.status === "error") return q.state.error instanceof ApiError && q.state.error.status === 404 ? false : 10_000;
      const order = q.state.data;
      if (order ? FINAL.includes(order.status) : pollAfter.current === null) return false;
      return Math.min(Math.max(pollAfter.current ?? 5, 1), 10) * 1000;
    },
  });
}
