import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { cache } from "react";
import type { HostedOrderView } from "@/app/_hosted/api";
import { OrderPanel } from "@/app/_hosted/OrderPanel";
import { ClientMessages, clientIp, first, HostedShell, hostedLocale, LanguagePicker, type Search } from "@/app/_hosted/shell";
import { getDb, hostedOrderBrand, hostedSandboxEnabled, hostedStatusPath, pageOrder } from "@/app/_server/lib";

/** The order's reseller's brand, read once per request (the title and the page): only with the link's secret. */
const orderBrand = cache(async (id: string, token: string | null) =>
  /^[0-9a-f]{24}$/.test(id) && token ? hostedOrderBrand(getDb(), { orderId: id, token }).catch(() => null) : null,
);

export async function generateMetadata({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<Search>;
}): Promise<Metadata> {
  const brand = await orderBrand((await params).id, first((await searchParams).t) ?? null);
  const t = await getTranslations("status");
  return {
    title: { absolute: brand?.name ? `${t("title")} · ${brand.name}` : t("title") },
    robots: { index: false, follow: false },
    referrer: "no-referrer",
  };
}

/**
 * A hosted order's status page: /o/<order id>?t=<secret>. Rendered on the server from the
 * order (the hosted API's lib function, with its token check: a wrong or missing secret is the
 * 404 of an unknown id), so it works without JavaScript: it reloads itself (a meta refresh,
 * inside <noscript>, as often as Poll-After says, 5 to 30 s) until the order is final. With
 * JavaScript it polls instead. An old link with the secret in its fragment (#t=) is moved to
 * the query by the not-found page's script (./not-found.tsx). The secret never reaches a log
 * (lib/log.ts) nor a Referer (Referrer-Policy: no-referrer, next.config.mjs).
 */
export default async function OrderStatusPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<Search>;
}) {
  const { id } = await params;
  const sp = await searchParams;
  const token = first(sp.t) ?? null;
  if (!/^[0-9a-f]{24}$/.test(id) || !token) notFound();
  const { locale, lang } = await hostedLocale(sp);
  const t = await getTranslations("status");
  const tc = await getTranslations("common");
  let found: Awaited<ReturnType<typeof pageOrder>>;
  try {
    found = await pageOrder(getDb(), { orderId: id, token, clientIp: await clientIp() });
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === "ORDER_NOT_FOUND") notFound();
    if (code !== "RATE_LIMITED") throw e;
    // Over the IP's budget (the hosted API's): say so, and look again when the budget allows.
    const wait = Math.min(60, Math.max(5, Number((e as { details?: { retryAfter?: number } }).details?.retryAfter) || 10));
    const te = await getTranslations("errors");
    return (
      <HostedShell theme={{ dark: false, accent: "#4f46e5" }} widget={false} title={t("title")} picker={null}>
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: a fixed tag with a number; React would hoist a bare <meta> */}
        <div dangerouslySetInnerHTML={{ __html: `<meta http-equiv="refresh" content="${wait}">` }} />
        <p role="alert" className="rounded-xl border border-zinc-200 bg-white p-5" data-testid="rate-limited">
          {te("rateLimited")}
        </p>
      </HostedShell>
    );
  }
  const { view, refreshSeconds } = found;
  const brand = await orderBrand(id, token);
  return (
    <HostedShell
      theme={{ dark: false, accent: brand?.accent ?? "#4f46e5" }}
      widget={false}
      brand={brand}
      title={t("title")}
      picker={<LanguagePicker path={`/o/${id}`} sp={sp} locale={locale} label={tc("language")} />}
    >
      {refreshSeconds !== null ? (
        // Without JavaScript the page reloads itself; with it, <noscript> is inert and the panel polls.
        // biome-ignore lint/security/noDangerouslySetInnerHtml: a fixed tag with a number; React would hoist a <meta> out of <noscript>
        <noscript dangerouslySetInnerHTML={{ __html: `<meta http-equiv="refresh" content="${Number(refreshSeconds)}">` }} />
      ) : null}
      <ClientMessages namespaces={["status", "errors", "common"]}>
        <OrderPanel
          id={view.id}
          token={token}
          // The object the hosted API answers and documents as HostedOrderView (lib/http/hosted-schemas.ts).
          initial={view as unknown as HostedOrderView}
          sandbox={hostedSandboxEnabled()}
          statusUrl={hostedStatusPath(view.id, token, lang)}
          lang={lang}
          refreshSeconds={refreshSeconds}
          support={brand?.support ?? null}
        />
      </ClientMessages>
    </HostedShell>
  );
}
