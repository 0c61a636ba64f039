"use client";

import { show, Table, when } from "./ui";

/** Audit events: when, who, what, before → after, why. */
export function AuditRows({ rows, testId }: { rows: unknown[]; testId?: string }) {
  const list = rows.filter((r): r is Record<string, unknown> => !!r && typeof r === "object");
  return (
    <Table head={["When", "Who", "Role", "Action", "Target", "Before", "After", "Reason"]} empty={!list.length} testId={testId}>
      {list.map((e, i) => (
        <tr key={String(e.id ?? i)} data-testid="audit-row" data-action={String(e.action ?? "")}>
          <td className="font-mono whitespace-nowrap">{when(e.at)}</td>
          <td className="font-mono">{show(e.actor)}</td>
          <td>{show(e.role)}</td>
          <td className="font-mono whitespace-nowrap">{show(e.action)}</td>
          <td className="font-mono whitespace-nowrap">
            {show(e.targetType)} {show(e.targetId)}
          </td>
          <td className="max-w-72 font-mono break-all">{show(e.before)}</td>
          <td className="max-w-72 font-mono break-all">{show(e.after)}</td>
          <td>{show(e.reason)}</td>
        </tr>
      ))}
    </Table>
  );
}
