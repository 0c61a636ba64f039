/** GET a dashboard read endpoint; a lost session sends the browser to the sign-in page. */
export async function fetchJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { cache: "no-store", headers: { Accept: "application/json" } });
  if (res.status === 401) {
    window.location.assign(`/signin?callbackUrl=${encodeURIComponent(window.location.pathname + window.location.search)}`);
    throw new Error("Signed out");
  }
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    throw new Error(body?.error?.message ?? `Request failed (${res.status})`);
  }
  return (await res.json()) as T;
}
