"use client";

import { show, Table, when } from "./ui";

/**
 * What an audit event changed: each field whose value differs between before and after, as
 * "field: before → after" (an event with only an after lists it). The full JSON is in the cell's title.
 */
function changes(before: unknown, after: unknown): string[] {
  const obj = (v: unknown) => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null);
  const b = obj(before);
  const a = obj(after);
  if (!a && !b) return (before ?? null) === null && (after ?? null) === null ? [] : [`${show(before)} → ${show(after)}`];
  if (!b) return Object.entries(a ?? {}).map(([k, v]) => `${k}: ${show(v)}`);
  if (!a) return Object.entries(b).map(([k, v]) => `${k}: ${show(v)} → —`);
  const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])];
  return keys
    .filter((k) => JSON.stringify(b[k] ?? null) !== JSON.stringify(a[k] ?? null))
    .map((k) => `${k}: ${show(b[k])} → ${show(a[k])}`);
}

/** Audit events: when, who, what, what changed, why. */
export function AuditRows({ rows, testId }: { rows: unknown[]; testId?: string }) {
  const list = rows.filter((r): r is Record<string, unknown> => !!r && typeof r === "object");
  return (
    <Table head={["When", "Who", "Role", "Action", "Target", "Change", "Reason"]} empty={!list.length} testId={testId}>
      {list.map((e, i) => (
        <tr key={String(e.id ?? i)} data-testid="audit-row" data-action={String(e.action ?? "")}>
          <td className="font-mono whitespace-nowrap">{when(e.at)}</td>
          <td className="max-w-48 font-mono break-all">{show(e.actor)}</td>
          <td>{show(e.role)}</td>
          <td className="font-mono whitespace-nowrap">{show(e.action)}</td>
          <td className="font-mono whitespace-nowrap">{e.targetType ? `${show(e.targetType)} ${show(e.targetId)}` : "—"}</td>
          <td
            className="min-w-80 font-mono break-all"
            title={`before: ${JSON.stringify(e.before ?? null)}\nafter: ${JSON.stringify(e.after ?? null)}`}
          >
            {changes(e.before, e.after).map((c) => (
              <div key={c}>{c}</div>
            ))}
          </td>
          <td>{show(e.reason)}</td>
        </tr>
      ))}
    </Table>
  );
}
