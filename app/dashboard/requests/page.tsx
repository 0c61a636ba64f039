import type { Metadata } from "next";
import { Suspense } from "react";
import { getDb, getRequestLogPage } from "@/app/_server/lib";
import { requirePageMember } from "@/app/_server/session";
import { NoAccess } from "@/components/dashboard/NoAccess";
import { STATUS_CLASSES, type StatusClassName } from "@/lib/dashboard/types";
import { type RequestFilters, RequestsView } from "./RequestsView";

export const metadata: Metadata = { title: "Requests" };

const isInstant = (s: string | undefined): s is string => !!s && s.length <= 40 && !Number.isNaN(Date.parse(s));

export default async function RequestsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const me = await requirePageMember("/dashboard/requests", "read:requests");
  if (!me.allowed) return <NoAccess />;
  const sp = await searchParams;
  const one = (k: string) => {
    const v = sp[k];
    return (Array.isArray(v) ? v[0] : v)?.slice(0, 100) || undefined;
  };
  const status = one("status");
  // The filters the URL names, as the read takes them; one it cannot use is left out.
  const filters: RequestFilters = {
    status: (STATUS_CLASSES as readonly string[]).includes(status ?? "") ? (status as StatusClassName) : undefined,
    route: one("route"),
    key: one("key"),
    from: isInstant(one("from")) ? new Date(one("from") as string).toISOString() : undefined,
    to: isInstant(one("to")) ? new Date(one("to") as string).toISOString() : undefined,
  };
  const initial = await getRequestLogPage(getDb(), me.resellerId, filters);
  return (
    <Suspense>
      <RequestsView initial={initial} initialFilters={filters} />
    </Suspense>
  );
}
