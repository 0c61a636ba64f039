import { HostedNotFound } from "@/app/_hosted/NotFound";

/** An unknown order, or a wrong or missing secret: the same 404, with no way into the dashboard. */
export default function NotFound() {
  return <HostedNotFound order />;
}
