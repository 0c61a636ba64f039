import { HostedNotFound } from "@/app/_hosted/NotFound";

/** An unknown, disabled or revoked page: the end user's 404, with no way into the dashboard. */
export default function NotFound() {
  return <HostedNotFound order={false} />;
}
