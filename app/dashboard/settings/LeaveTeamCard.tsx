"use client";

import { useMutation } from "@tanstack/react-query";
import { signOut } from "next-auth/react";
import { leaveTeamAction } from "@/app/dashboard/actions";
import { callAction } from "@/app/dashboard/call-action";
import { Alert, Button, Card, CardHeader } from "@/components/ui";

/** Leaves this reseller's team (issue 54); the last owner cannot (LAST_OWNER). This session ends with it. */
export function LeaveTeamCard() {
  const leave = useMutation({
    mutationFn: () => callAction(leaveTeamAction()),
    onSuccess: () => signOut({ callbackUrl: "/signin" }),
  });
  return (
    <Card aria-labelledby="leave-title">
      <CardHeader id="leave-title" title="Team" description="Leave this reseller's team. An owner can invite you again." />
      <div className="space-y-3 px-4 py-4 sm:px-5">
        <Button variant="secondary" onClick={() => leave.mutate()} disabled={leave.isPending} data-testid="leave-team">
          Leave this team
        </Button>
        {leave.isError ? <Alert>{leave.error.message}</Alert> : null}
      </div>
    </Card>
  );
}
