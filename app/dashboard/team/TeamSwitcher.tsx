"use client";

import { useState } from "react";
import { switchTeamAction } from "@/app/dashboard/actions";

/** "Switch team": the wallet's teams; choosing one points this session at it and reloads the dashboard. */
export function TeamSwitcher({ teams, current }: { teams: { id: string; label: string }[]; current: string }) {
  const [busy, setBusy] = useState(false);
  return (
    <label className="text-xs text-zinc-600">
      <span className="sr-only">Team</span>
      <select
        className="rounded-md border border-zinc-300 bg-white px-2 py-1 text-xs"
        value={current}
        disabled={busy}
        data-testid="team-switcher"
        onChange={async (e) => {
          setBusy(true);
          const r = await switchTeamAction(e.target.value);
          if (r.ok) window.location.assign("/dashboard");
          else setBusy(false);
        }}
      >
        {teams.map((t) => (
          <option key={t.id} value={t.id}>
            {t.label}
          </option>
        ))}
      </select>
    </label>
  );
}
