// The dashboard's react-query keys, made here only: a view's query and the writes that
// refresh it must name the same key. A key's prefix (`all`) refreshes every key under it, e.g.
// the overview of every period.
export const queryKeys = {
  overview: { all: ["overview"] as const, period: (days: number) => ["overview", days] as const },
  earnings: (days: number) => ["earnings", days] as const,
  channels: (days: number) => ["channels", days] as const,
  widgets: ["widgets"] as const,
  brand: ["brand"] as const,
  /** `query`: the orders page's search string (status, search text, page). */
  orders: (query: string) => ["orders", query] as const,
  order: (id: string) => ["order", id] as const,
  /** The active keys, or a page of the revoked ones (`older`: its cursor, "" for the first). */
  keys: {
    all: ["keys"] as const,
    active: (older: string) => ["keys", "active", older] as const,
    revoked: (older: string) => ["keys", "revoked", older] as const,
  },
  webhookEndpoints: ["webhooks"] as const,
  /** An endpoint's delivery log (`older`: the page's cursor, "" for the newest), or all its pages (no `older`). */
  webhookDeliveries: (endpointId: string, older?: string) =>
    (older === undefined ? ["webhook-deliveries", endpointId] : ["webhook-deliveries", endpointId, older]) as readonly string[],
  settings: ["settings"] as const,
  withdrawals: ["withdrawals"] as const,
  payouts: ["payouts"] as const,
  statements: ["statements"] as const,
  /** The request log's pages for one set of filters (`query`: the filters' search string). */
  requests: (query: string) => ["requests", query] as const,
  team: ["team"] as const,
};
