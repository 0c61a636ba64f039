"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { createInviteAction, removeMemberAction, revokeInviteAction, setMemberRoleAction } from "@/app/dashboard/actions";
import { callAction } from "@/app/dashboard/call-action";
import { queryKeys } from "@/app/dashboard/query-keys";
import { fetchRead } from "@/app/dashboard/read";
import { formatDateTime } from "@/components/format";
import { Alert, Button, Card, CardHeader, EmptyState, PageHeader } from "@/components/ui";
import { CopyButton } from "@/components/ui/CopyButton";
import type { TeamView as Team } from "@/lib/dashboard/types";
import { ROLE_TEXT, TEAM_ROLES, type TeamRole } from "@/lib/teams/roles";

const ACTION_TEXT: Record<string, string> = {
  "invite.created": "Invitation created",
  "invite.revoked": "Invitation revoked",
  "invite.used": "Invitation used",
  "member.role_changed": "Role changed",
  "member.removed": "Member removed",
  "member.left": "Member left",
};

const json = (v: unknown) => (v === null || v === undefined ? "" : JSON.stringify(v));

/** The Team page (owners): members and their roles, open invitations, and the record of every change. */
export function TeamView({ initial, me }: { initial: Team; me: string }) {
  const qc = useQueryClient();
  const q = useQuery({ queryKey: queryKeys.team, queryFn: ({ signal }) => fetchRead("team", {}, signal), initialData: initial });
  const team = q.data;
  const [role, setRole] = useState<TeamRole>("developer");
  const [link, setLink] = useState<{ url: string; role: TeamRole; expiresAt: string } | null>(null);
  const roleId = useId();
  const refresh = () => qc.invalidateQueries({ queryKey: queryKeys.team });

  const invite = useMutation({
    mutationFn: (r: TeamRole) => callAction(createInviteAction(r)),
    onSuccess: (i) => {
      setLink({ url: `${window.location.origin}${i.path}`, role: i.role, expiresAt: i.expiresAt });
      void refresh();
    },
  });
  const revoke = useMutation({ mutationFn: (id: string) => callAction(revokeInviteAction(id)), onSuccess: () => void refresh() });
  const change = useMutation({
    mutationFn: (a: { id: string; role: TeamRole }) => callAction(setMemberRoleAction(a.id, a.role)),
    onSuccess: () => void refresh(),
  });
  const remove = useMutation({ mutationFn: (id: string) => callAction(removeMemberAction(id)), onSuccess: () => void refresh() });
  const error = invite.error ?? revoke.error ?? change.error ?? remove.error;

  return (
    <>
      <PageHeader
        title="Team"
        description="Invite wallets to this reseller account with a role; each change is kept in the record below."
      />
      <div className="space-y-6">
        {error ? <Alert>{error.message}</Alert> : null}
        <Card aria-labelledby="invite-title">
          <CardHeader id="invite-title" title="Invite" description="A link that works once, for one wallet, and expires." />
          <div className="space-y-3 px-4 py-4 sm:px-5">
            <div className="flex flex-wrap items-end gap-3">
              <label htmlFor={roleId} className="text-sm">
                <span className="block text-zinc-600">Role</span>
                <select
                  id={roleId}
                  className="mt-1 rounded-md border border-zinc-300 px-2 py-1.5 text-sm"
                  value={role}
                  onChange={(e) => setRole(e.target.value as TeamRole)}
                  data-testid="invite-role"
                >
                  {TEAM_ROLES.map((r) => (
                    <option key={r} value={r}>
                      {ROLE_TEXT[r]}
                    </option>
                  ))}
                </select>
              </label>
              <Button onClick={() => invite.mutate(role)} disabled={invite.isPending} data-testid="create-invite">
                Create invitation link
              </Button>
            </div>
            {link ? (
              <Alert tone="success" title={`An invitation as ${link.role}, until ${formatDateTime(link.expiresAt)}. Shown once:`}>
                <div className="mt-1 flex items-center gap-2">
                  <code className="break-all" data-testid="invite-link">
                    {link.url}
                  </code>
                  <CopyButton text={link.url} />
                </div>
              </Alert>
            ) : null}
          </div>
        </Card>

        <Card aria-labelledby="members-title">
          <CardHeader id="members-title" title="Members" />
          <ul className="divide-y divide-zinc-100">
            {team.members.map((m) => (
              <li key={m.id} className="flex flex-wrap items-center justify-between gap-3 px-4 py-3 sm:px-5" data-testid="member-row">
                <span className="font-mono text-sm break-all">
                  {m.wallet}
                  {m.wallet === me ? <span className="ml-2 text-xs text-zinc-500">(you)</span> : null}
                </span>
                <span className="flex items-center gap-2">
                  <select
                    aria-label={`Role of ${m.wallet}`}
                    className="rounded-md border border-zinc-300 px-2 py-1 text-sm"
                    value={m.role}
                    onChange={(e) => change.mutate({ id: m.id, role: e.target.value as TeamRole })}
                  >
                    {TEAM_ROLES.map((r) => (
                      <option key={r} value={r}>
                        {r}
                      </option>
                    ))}
                  </select>
                  <Button variant="secondary" onClick={() => remove.mutate(m.id)} disabled={remove.isPending} data-testid="remove-member">
                    Remove
                  </Button>
                </span>
              </li>
            ))}
          </ul>
        </Card>

        <Card aria-labelledby="invites-title">
          <CardHeader id="invites-title" title="Open invitations" />
          {team.invites.length === 0 ? (
            <EmptyState title="No open invitations" />
          ) : (
            <ul className="divide-y divide-zinc-100">
              {team.invites.map((i) => (
                <li key={i.id} className="flex flex-wrap items-center justify-between gap-3 px-4 py-3 text-sm sm:px-5">
                  <span>
                    {i.role}, until {formatDateTime(i.expiresAt)}
                  </span>
                  <Button variant="secondary" onClick={() => revoke.mutate(i.id)} disabled={revoke.isPending}>
                    Revoke
                  </Button>
                </li>
              ))}
            </ul>
          )}
        </Card>

        <Card aria-labelledby="record-title">
          <CardHeader
            id="record-title"
            title="Record"
            description="Every change to the team, newest first. Nothing here can be edited or deleted."
          />
          <div className="overflow-x-auto">
            <table className="w-full text-left text-sm" data-testid="team-record">
              <thead className="text-zinc-500">
                <tr>
                  <th className="px-4 py-2 font-medium">When</th>
                  <th className="px-4 py-2 font-medium">Who</th>
                  <th className="px-4 py-2 font-medium">What</th>
                  <th className="px-4 py-2 font-medium">Whom</th>
                  <th className="px-4 py-2 font-medium">Before</th>
                  <th className="px-4 py-2 font-medium">After</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-zinc-100">
                {team.events.map((e) => (
                  <tr key={e.id}>
                    <td className="px-4 py-2 whitespace-nowrap">{formatDateTime(e.at)}</td>
                    <td className="px-4 py-2 font-mono text-xs break-all">{e.actor}</td>
                    <td className="px-4 py-2">{ACTION_TEXT[e.action] ?? e.action}</td>
                    <td className="px-4 py-2 font-mono text-xs break-all">{e.target}</td>
                    <td className="px-4 py-2 font-mono text-xs">{json(e.before)}</td>
                    <td className="px-4 py-2 font-mono text-xs">{json(e.after)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </Card>
      </div>
    </>
  );
}
