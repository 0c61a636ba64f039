"use client";

import { useMutation } from "@tanstack/react-query";
import { signOut } from "next-auth/react";
import { useState } from "react";
import { signOutEverywhereAction } from "@/app/dashboard/actions";
import { callAction } from "@/app/dashboard/call-action";
import { Alert, Button, Card, CardHeader } from "@/components/ui";
import { ConfirmDialog } from "@/components/ui/ConfirmDialog";

/** "Sign out everywhere": ends every session of this wallet, on every device, this one included. */
export function SessionsCard() {
  const [confirming, setConfirming] = useState(false);
  const end = useMutation({
    mutationFn: () => callAction(signOutEverywhereAction()),
    // The server no longer accepts any session of this wallet; clear this browser's cookie too.
    onSuccess: () => signOut({ callbackUrl: "/signin" }),
  });
  return (
    <Card aria-labelledby="sessions-title">
      <CardHeader
        id="sessions-title"
        title="Sessions"
        description="Signed in on a shared or lost device? End every session of this wallet at once."
      />
      <div className="space-y-3 px-4 py-4 sm:px-5">
        <Button variant="secondary" onClick={() => setConfirming(true)}>
          Sign out everywhere
        </Button>
        {end.isError ? <Alert>{end.error.message}</Alert> : null}
      </div>
      <ConfirmDialog
        open={confirming}
        title="Sign out everywhere?"
        confirmLabel="Sign out everywhere"
        tone="danger"
        busy={end.isPending || end.isSuccess}
        onCancel={() => {
          setConfirming(false);
          end.reset();
        }}
        onConfirm={() => end.mutate()}
      >
        <p>Every browser signed in with this wallet, this one included, is signed out at once. Your API keys keep working.</p>
      </ConfirmDialog>
    </Card>
  );
}
