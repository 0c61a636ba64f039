import "server-only";
import { getTranslations } from "next-intl/server";
import { MoveFragmentToken } from "./fragment";
import { HostedFrame } from "./theme";

/**
 * The 404 of the end user's pages (an unknown reseller, widget or order, or a status link
 * without its secret): no way into the dashboard, which end users never have.
 */
export async function HostedNotFound({ order }: { order: boolean }) {
  const t = await getTranslations(order ? "status" : "common");
  return (
    <HostedFrame theme={{ dark: false, accent: "#4f46e5" }} widget={false}>
      <main className="mx-auto max-w-xl px-4 py-10">
        {order ? <MoveFragmentToken /> : null}
        <div role="alert" className="rounded-xl border border-zinc-200 bg-white p-5">
          <h1 className="text-lg font-semibold">{t("notFoundTitle")}</h1>
          <p className="mt-1 text-sm text-zinc-600">{t("notFoundText")}</p>
        </div>
      </main>
    </HostedFrame>
  );
}
