"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState } from "react";
import { createKeyAction, type NewKey, revokeKeyAction, rotateKeyAction, setKeyMarkupAction } from "@/app/dashboard/actions";
import { callAction } from "@/app/dashboard/call-action";
import { queryKeys } from "@/app/dashboard/query-keys";
import { fetchRead } from "@/app/dashboard/read";
import { formatDateTime } from "@/components/format";
import { Alert, Button, Card, CardHeader, EmptyState, PageHeader, TextLink } from "@/components/ui";
import { ConfirmDialog } from "@/components/ui/ConfirmDialog";
import { CopyButton } from "@/components/ui/CopyButton";
import type { ApiKeyRow, KeyPage } from "@/lib/dashboard/types";

type Pending = { kind: "rotate" | "revoke"; key: ApiKeyRow } | null;

/**
 * A list of keys a page at a time (lib/keys: listApiKeys): the active ones, 50 a page, or the
 * revoked ones, 20 a page. `cursors` is the way back: the cursor of each page
 * shown since the first.
 */
function useKeyPages(revoked: boolean, opts: { initial?: KeyPage; enabled?: boolean } = {}) {
  const [cursors, setCursors] = useState<string[]>([]);
  const older = cursors.at(-1) ?? "";
  const q = useQuery({
    queryKey: revoked ? queryKeys.keys.revoked(older) : queryKeys.keys.active(older),
    queryFn: ({ signal }) => fetchRead("keys", { revoked, older }, signal),
    initialData: older === "" ? opts.initial : undefined,
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
    enabled: opts.enabled ?? true,
  });
  const next = q.data?.older;
  return {
    q,
    rows: q.data?.items ?? [],
    page: cursors.length + 1,
    newer: cursors.length > 0 ? () => setCursors(cursors.slice(0, -1)) : null,
    older: next ? () => setCursors([...cursors, next]) : null,
    first: () => setCursors([]),
  };
}

export function KeysView({ initial, maxActiveKeys }: { initial: KeyPage; maxActiveKeys: number }) {
  const qc = useQueryClient();
  const [showRevoked, setShowRevoked] = useState(false);
  const active = useKeyPages(false, { initial });
  const revoked = useKeyPages(true, { enabled: showRevoked });
  const [fresh, setFresh] = useState<{ key: NewKey; rotatedFrom?: string } | null>(null);
  const [pending, setPending] = useState<Pending>(null);
  const [name, setName] = useState("");
  const nameId = useId();
  const revokedId = useId();
  // At the cap (or past it, with keys made before it): the server refuses another (API_KEY_LIMIT_REACHED).
  const activeCount = active.q.data?.active ?? active.rows.length;
  const atCap = activeCount >= maxActiveKeys;

  const refresh = () => qc.invalidateQueries({ queryKey: queryKeys.keys.all });
  const create = useMutation({
    mutationFn: (n: string) => callAction(createKeyAction(n)),
    onSuccess: (k) => {
      setFresh({ key: k });
      setName("");
      void refresh();
    },
  });
  const rotate = useMutation({
    mutationFn: (k: ApiKeyRow) => callAction(rotateKeyAction(k.id)),
    onSuccess: (k, old) => {
      setFresh({ key: k, rotatedFrom: old.prefix });
      setPending(null);
      void refresh();
    },
  });
  const revoke = useMutation({
    mutationFn: (k: ApiKeyRow) => callAction(revokeKeyAction(k.id)),
    onSuccess: () => {
      setPending(null);
      void refresh();
    },
  });
  return (
    <>
      <PageHeader
        title="API keys"
        description={
          <>
            Send a key in the <code className="rounded bg-zinc-100 px-1 font-mono text-[0.85em]">X-API-Key</code> header of every v1 API
            call; orders made with it earn your markup. Only a key&apos;s first characters are stored in readable form, so a key is shown
            once. See <TextLink href="/dashboard/docs">the quick start</TextLink>.
          </>
        }
      />

      {fresh ? <NewKeyPanel fresh={fresh} onDone={() => setFresh(null)} /> : null}

      <Card className="mb-6" aria-labelledby="create-title">
        <CardHeader
          id="create-title"
          title="Create a key"
          description={`Use one key per app or site, so you can rotate or revoke it on its own. You can have up to ${maxActiveKeys} active keys; rotating a key replaces it.`}
        />
        <form
          className="flex flex-col gap-3 px-4 py-4 sm:flex-row sm:items-end sm:px-5"
          onSubmit={(e) => {
            e.preventDefault();
            if (name.trim()) create.mutate(name.trim());
          }}
        >
          <div className="flex-1">
            <label htmlFor={nameId} className="block text-sm font-medium text-zinc-700">
              Key name
            </label>
            <input
              id={nameId}
              name="name"
              value={name}
              onChange={(e) => setName(e.target.value)}
              maxLength={64}
              required
              placeholder="e.g. Wallet app (production)"
              className="mt-1 block w-full rounded-md border border-zinc-300 px-3 py-2 text-sm shadow-sm placeholder:text-zinc-400"
            />
          </div>
          <Button type="submit" disabled={create.isPending || !name.trim() || atCap}>
            {create.isPending ? "Creating…" : "Create key"}
          </Button>
        </form>
        {create.isError ? (
          <div className="px-4 pb-4 sm:px-5">
            <Alert>{create.error.message}</Alert>
          </div>
        ) : atCap ? (
          <p className="px-4 pb-4 text-sm text-zinc-600 sm:px-5" data-testid="key-cap">
            You have {maxActiveKeys} active keys, the most you can have: revoke one to create another.
          </p>
        ) : null}
      </Card>

      <Card aria-labelledby="list-title">
        <CardHeader
          id="list-title"
          title="Your keys"
          description={`Active keys: ${activeCount} of at most ${maxActiveKeys}${active.older || active.newer ? ", 50 a page" : ""}`}
          actions={
            <label htmlFor={revokedId} className="inline-flex items-center gap-2 text-sm text-zinc-600">
              <input
                id={revokedId}
                type="checkbox"
                checked={showRevoked}
                onChange={(e) => {
                  setShowRevoked(e.target.checked);
                  revoked.first();
                }}
                className="size-4 rounded border-zinc-300"
              />
              Show revoked keys
            </label>
          }
        />
        {active.q.isError ? (
          <div className="px-4 py-3">
            <Alert>Could not load keys: {active.q.error.message}</Alert>
          </div>
        ) : null}
        {active.rows.length === 0 ? (
          <EmptyState title="No API keys yet">Create one above to start calling the API.</EmptyState>
        ) : (
          <KeyList rows={active.rows} label="API keys" onAsk={setPending} />
        )}
        {active.older || active.newer ? <Pager list={active} label="Pages of active keys" /> : null}
      </Card>

      {showRevoked ? (
        <Card className="mt-6" aria-labelledby="revoked-title">
          <CardHeader
            id="revoked-title"
            title="Revoked keys"
            description="The last revoked first, 20 a page. Their orders stay, under their channel."
          />
          {revoked.q.isError ? (
            <div className="px-4 py-3">
              <Alert>Could not load revoked keys: {revoked.q.error.message}</Alert>
            </div>
          ) : null}
          {revoked.rows.length === 0 ? (
            <EmptyState title={revoked.q.isPending ? "Loading…" : "No revoked keys"}>Keys you revoke or rotate are listed here.</EmptyState>
          ) : (
            <KeyList rows={revoked.rows} label="Revoked API keys" onAsk={setPending} />
          )}
          {revoked.older || revoked.newer ? <Pager list={revoked} label="Pages of revoked keys" /> : null}
        </Card>
      ) : null}

      <ConfirmDialog
        open={pending?.kind === "rotate"}
        title={`Rotate “${pending?.key.name ?? ""}”?`}
        confirmLabel="Rotate key"
        busy={rotate.isPending}
        onCancel={() => {
          setPending(null);
          rotate.reset();
        }}
        onConfirm={() => pending && rotate.mutate(pending.key)}
      >
        <p>
          A new key replaces <span className="font-mono">{pending?.key.prefix}…</span>. The new key works at once and the old one stops at
          once: update your app right after.
        </p>
        {rotate.isError ? (
          <div className="mt-3">
            <Alert>{rotate.error.message}</Alert>
          </div>
        ) : null}
      </ConfirmDialog>
      <ConfirmDialog
        open={pending?.kind === "revoke"}
        title={`Revoke “${pending?.key.name ?? ""}”?`}
        confirmLabel="Revoke key"
        tone="danger"
        busy={revoke.isPending}
        onCancel={() => {
          setPending(null);
          revoke.reset();
        }}
        onConfirm={() => pending && revoke.mutate(pending.key)}
      >
        <p>
          Calls with <span className="font-mono">{pending?.key.prefix}…</span> will be refused from now on. Orders already made with it keep
          their markup. This cannot be undone.
        </p>
        {revoke.isError ? (
          <div className="mt-3">
            <Alert>{revoke.error.message}</Alert>
          </div>
        ) : null}
      </ConfirmDialog>
    </>
  );
}

/**
 * A key's own markup (its channel's), overriding your default within the same cap; empty
 * means your default. It applies to the key's very next estimate and order.
 */
function KeyMarkup({ k }: { k: ApiKeyRow }) {
  const qc = useQueryClient();
  const id = useId();
  const [value, setValue] = useState(k.markupBps === null ? "" : String(k.markupBps));
  const save = useMutation({
    mutationFn: () => callAction(setKeyMarkupAction(k.id, value.trim() === "" ? null : Number(value.trim()))),
    onSuccess: () => qc.invalidateQueries({ queryKey: queryKeys.keys.all }),
  });
  return (
    <form
      className="mt-2 flex flex-wrap items-center gap-2 md:mt-0 md:flex-nowrap"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <label htmlFor={id} className="sr-only">
        Markup of {k.name} in basis points (empty: your default)
      </label>
      <input
        id={id}
        inputMode="numeric"
        value={value}
        onChange={(e) => setValue(e.target.value)}
        placeholder="default"
        className="w-24 rounded-md border border-zinc-300 px-2 py-1 text-sm"
        data-testid="key-markup"
      />
      <span className="text-xs text-zinc-500">bps</span>
      <Button type="submit" size="sm" variant="secondary" disabled={save.isPending}>
        Save
      </Button>
      {save.isError ? (
        <span role="alert" className="text-xs text-rose-700">
          {save.error.message}
        </span>
      ) : null}
      {save.isSuccess ? (
        <span role="status" className="text-xs text-emerald-700">
          Saved
        </span>
      ) : null}
    </form>
  );
}

type KeyPages = ReturnType<typeof useKeyPages>;

/**
 * Keys as rows of one table, laid out as a table from md up and as stacked cards below it (one
 * markup for both: with 100 keys the page carried every key twice, 400 KB). Active keys have
 * their markup and actions; revoked ones a link to their orders.
 */
function KeyList({ rows, label, onAsk }: { rows: ApiKeyRow[]; label: string; onAsk: (p: Pending) => void }) {
  const cell = "block md:table-cell md:px-4 md:py-3 md:first:pl-5 md:last:pr-5";
  return (
    <div className="md:overflow-x-auto">
      <table className="block w-full text-left text-sm md:table" aria-label={label}>
        <thead className="hidden bg-zinc-50 text-zinc-500 md:table-header-group">
          <tr>
            <th scope="col" className="px-4 py-2 font-medium first:pl-5">
              Name
            </th>
            <th scope="col" className="px-4 py-2 font-medium first:pl-5">
              Key
            </th>
            <th scope="col" className="px-4 py-2 font-medium first:pl-5">
              Created
            </th>
            <th scope="col" className="px-4 py-2 font-medium first:pl-5">
              Last used
            </th>
            <th scope="col" className="px-4 py-2 font-medium first:pl-5">
              Markup
            </th>
            <th scope="col" className="px-4 py-2 pr-5 text-right font-medium">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody className="block divide-y divide-zinc-100 md:table-row-group">
          {rows.map((k) => (
            <tr
              key={k.id}
              data-testid="key-row"
              data-prefix={k.prefix}
              className={`block px-4 py-3 md:table-row md:p-0${k.revokedAt ? " text-zinc-400" : ""}`}
            >
              <td className={`${cell} truncate font-medium`}>{k.name}</td>
              <td className={`${cell} font-mono break-all md:whitespace-nowrap`}>{k.prefix}…</td>
              <td className={`${cell} mt-1 text-xs md:mt-0 md:text-sm`}>
                <span className="md:hidden">Created </span>
                {formatDateTime(k.createdAt)}
              </td>
              <td className={`${cell} text-xs md:text-sm`}>
                {k.revokedAt ? (
                  <span className="md:hidden">Revoked {formatDateTime(k.revokedAt)}</span>
                ) : (
                  <span className="md:hidden">Last used </span>
                )}
                <span className={k.revokedAt ? "hidden md:inline" : undefined}>
                  {k.lastUsedAt ? formatDateTime(k.lastUsedAt) : "Never"}
                </span>
              </td>
              <td className={`${cell} md:whitespace-nowrap`}>
                {k.revokedAt ? (
                  <span className="text-xs md:text-sm">
                    <span className="md:hidden">Markup </span>
                    {k.markupBps ?? "default"}
                  </span>
                ) : (
                  <KeyMarkup k={k} />
                )}
              </td>
              <td className={`${cell} md:text-right md:whitespace-nowrap`}>
                {k.revokedAt ? (
                  <span className="mt-2 inline-flex items-center gap-3 md:mt-0">
                    <RevokedBadge />
                    <KeyOrdersLink k={k} />
                  </span>
                ) : (
                  <KeyActions k={k} onAsk={onAsk} />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A revoked key's orders stay: the Orders page filtered by its channel. */
function KeyOrdersLink({ k }: { k: ApiKeyRow }) {
  return (
    <TextLink href={`/dashboard/orders?channel=${encodeURIComponent(`key:${k.id}`)}`} aria-label={`Orders of key ${k.name}`}>
      Orders
    </TextLink>
  );
}

function Pager({ list, label }: { list: KeyPages; label: string }) {
  return (
    <nav
      aria-label={label}
      className="flex flex-wrap items-center justify-between gap-2 border-t border-zinc-100 px-4 py-3 text-sm sm:px-5"
    >
      <p className="text-zinc-600" aria-live="polite">
        Page {list.page}
      </p>
      <div className="flex gap-2">
        <Button variant="secondary" size="sm" disabled={!list.newer} onClick={list.first}>
          Newest
        </Button>
        <Button variant="secondary" size="sm" disabled={!list.newer} onClick={() => list.newer?.()}>
          Newer
        </Button>
        <Button variant="secondary" size="sm" disabled={!list.older} onClick={() => list.older?.()}>
          Older
        </Button>
      </div>
    </nav>
  );
}

function RevokedBadge() {
  return (
    <span className="inline-flex rounded-full bg-zinc-100 px-2 py-0.5 text-xs font-medium text-zinc-500 ring-1 ring-zinc-200 ring-inset">
      revoked
    </span>
  );
}

function KeyActions({ k, onAsk }: { k: ApiKeyRow; onAsk: (p: Pending) => void }) {
  return (
    <div className="mt-3 flex gap-2 md:mt-0 md:justify-end">
      <Button variant="secondary" size="sm" onClick={() => onAsk({ kind: "rotate", key: k })} aria-label={`Rotate key ${k.name}`}>
        Rotate
      </Button>
      <Button variant="danger" size="sm" onClick={() => onAsk({ kind: "revoke", key: k })} aria-label={`Revoke key ${k.name}`}>
        Revoke
      </Button>
    </div>
  );
}

function NewKeyPanel({ fresh, onDone }: { fresh: { key: NewKey; rotatedFrom?: string }; onDone: () => void }) {
  const ref = useRef<HTMLElement>(null);
  const inputId = useId();
  // biome-ignore lint/correctness/useExhaustiveDependencies: move focus to the panel each time a new key is shown
  useEffect(() => {
    ref.current?.focus();
  }, [fresh]);
  return (
    <section
      ref={ref}
      tabIndex={-1}
      aria-labelledby={`${inputId}-title`}
      className="mb-6 rounded-lg border border-emerald-200 bg-emerald-50 p-4 sm:p-5"
      data-testid="new-key-panel"
    >
      <h2 id={`${inputId}-title`} className="font-semibold text-emerald-900">
        {fresh.rotatedFrom ? `Key rotated: ${fresh.rotatedFrom}… no longer works` : `Key “${fresh.key.apiKey.name}” created`}
      </h2>
      <p className="mt-1 text-sm text-emerald-900">Copy it now and keep it secret. It will not be shown again.</p>
      <div className="mt-3 flex flex-col gap-2 sm:flex-row">
        <label htmlFor={inputId} className="sr-only">
          New API key
        </label>
        <input
          id={inputId}
          readOnly
          value={fresh.key.key}
          onFocus={(e) => e.currentTarget.select()}
          data-testid="new-key"
          className="min-w-0 flex-1 rounded-md border border-emerald-300 bg-white px-3 py-2 font-mono text-sm"
        />
        <div className="flex gap-2">
          <CopyButton text={fresh.key.key} label="Copy key" />
          <Button variant="ghost" size="sm" onClick={onDone}>
            Done
          </Button>
        </div>
      </div>
    </section>
  );
}
