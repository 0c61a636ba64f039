import { Card } from "@/components/ui";

/** A page the member's role may not see (lib/teams/roles.ts); the server refuses its reads and actions too. */
export function NoAccess() {
  return (
    <Card>
      <div className="px-4 py-6 sm:px-5" data-testid="no-access">
        <h1 className="text-lg font-semibold">Not available to your role</h1>
        <p className="mt-1 text-sm text-zinc-600">
          Your role in this team does not include this page. An owner of the team can change your role.
        </p>
      </div>
    </Card>
  );
}
