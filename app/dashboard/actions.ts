"use server";

import { z } from "zod";
import { args, noArgs, sessionAction, text } from "@/app/_server/action";
import {
  confirmWithdrawal,
  createApiKey,
  createEndpoint,
  createWidget,
  endAllSessions,
  getDb,
  quoteWithdrawal,
  redeliverFailed,
  redeliverOne,
  requestInstruction,
  revokeApiKey,
  revokeInstruction,
  rotateApiKey,
  rotateEndpointSecret,
  sendTestEvent,
  setBrand,
  setEndpointEnabled,
  setKeyMarkup,
  setMarkup,
  setWidgetEnabled,
  signInstruction,
  toKeyRow,
  updateWidget,
} from "@/app/_server/lib";
import type { ApiKeyRow } from "@/lib/dashboard/types";

// The dashboard's writes. Each action re-checks the session (an action is a public POST
// endpoint, whatever page shows its button), checks its arguments against their schema,
// passes only the session's reseller id to the service layer, and answers errors as data.
// The reads are GET route handlers (lib/dashboard/reads.ts, fetched by read.ts), not actions. Ids and names of a wrong type reach the service as "" (text()),
// which refuses them with its own error, as it does any wrong id.

export interface NewKey {
  key: string;
  apiKey: ApiKeyRow;
}

const newKey = (r: { key: string; apiKey: Parameters<typeof toKeyRow>[0] }): NewKey => ({ key: r.key, apiKey: toKeyRow(r.apiKey) });

const id = text(100);

export const createKeyAction = sessionAction(args(text(200)), async ([name], { resellerId }) =>
  newKey(await createApiKey(getDb(), { resellerId, name })),
);

export const rotateKeyAction = sessionAction(args(id), async ([keyId], { resellerId }) =>
  newKey(await rotateApiKey(getDb(), { resellerId, keyId })),
);

export const revokeKeyAction = sessionAction(args(id), async ([keyId], { resellerId }) => {
  await revokeApiKey(getDb(), { resellerId, keyId });
  return null;
});

/** The new endpoint's URL and events; the service checks both (anything but an object reads as neither). */
const newEndpoint = z.object({ url: text(2000), events: z.unknown() }).catch({ url: "", events: undefined });

/** Adds a webhook endpoint; the answer holds its secret, shown once. */
export const createWebhookEndpointAction = sessionAction(args(newEndpoint), ([input], { resellerId }) =>
  createEndpoint(getDb(), { resellerId, url: input.url, events: input.events }),
);

export const rotateWebhookSecretAction = sessionAction(args(id), ([endpointId], { resellerId }) =>
  rotateEndpointSecret(getDb(), { resellerId, endpointId }),
);

/** `enabled`: anything but true disables. */
export const setWebhookEnabledAction = sessionAction(args(id, z.boolean().catch(false)), ([endpointId, enabled], { resellerId }) =>
  setEndpointEnabled(getDb(), { resellerId, endpointId, enabled }),
);

export const sendWebhookTestAction = sessionAction(args(id), async ([endpointId], { resellerId }) => ({
  messageId: await sendTestEvent(getDb(), { resellerId, endpointId }),
}));

/** Sends one of the reseller's webhook deliveries again (lib/webhooks/redeliver.ts); an id that is not a whole number is none (NOT_FOUND). */
export const redeliverWebhookAction = sessionAction(args(z.number().int().catch(0)), ([deliveryId], { resellerId }) =>
  redeliverOne(getDb(), { resellerId, deliveryId }),
);

/** A time range of the dashboard's form: two instants with their offset; the service checks that one comes before the other. */
const timeRange = z.object({ from: z.iso.datetime({ offset: true }), to: z.iso.datetime({ offset: true }) }).strict();

/** Sends again an endpoint's failed deliveries created in [from, to), at most MAX_REDELIVER a click; answers how many were queued. */
export const redeliverFailedWebhooksAction = sessionAction(args(id, timeRange), ([endpointId, range], { resellerId }) =>
  redeliverFailed(getDb(), { resellerId, endpointId, from: new Date(range.from), to: new Date(range.to) }),
);

/** Not a number reads as NaN, which the service refuses (INVALID_MARKUP) like any markup that is not a whole number in range. */
export const setMarkupAction = sessionAction(args(z.number().catch(Number.NaN)), async ([markupBps], { resellerId }) => {
  const r = await setMarkup(getDb(), { resellerId, markupBps });
  return { markupBps: r.markupBps };
});

/** Ends every session of this wallet, on every device, this one included. */
export const signOutEverywhereAction = sessionAction(noArgs, async (_, { resellerId }) => {
  await endAllSessions(getDb(), { resellerId });
  return null;
});

const ticker = z.string().regex(/^[a-z0-9]{1,20}$/);
const quoteInput = z
  .object({
    asset: ticker,
    currencies: z.union([z.literal("all"), z.array(ticker).min(1).max(200)]),
    chainId: z.number().int().min(1).optional(),
  })
  .strict();
// A contract wallet's signature (a Safe's, ERC-1271) can be longer than an ECDSA one.
const confirmInput = z.object({ nonce: z.string().regex(/^[0-9a-f]{32}$/), signature: z.string().max(8200) }).strict();

/** The terms of a withdrawal to the connected wallet and the EIP-712 data to sign; nothing is reserved yet. */
export const quoteWithdrawalAction = sessionAction(args(quoteInput), ([input], { resellerId }) =>
  quoteWithdrawal(getDb(), { resellerId, ...input }),
);

/**
 * Queues a withdrawal: the session alone is not enough, the wallet's fresh EIP-712 signature
 * of the quoted terms is (a stolen cookie cannot withdraw). Reserves the balances at once.
 */
export const confirmWithdrawalAction = sessionAction(args(confirmInput), ([input], { resellerId }) =>
  confirmWithdrawal(getDb(), { resellerId, ...input }),
);

/**
 * Automatic payouts (lib/payouts, docs/payouts.md): the terms of a standing instruction to sign.
 * The service checks the input itself (its own schema: the trigger, the threshold, the caps).
 * At merge with teams (issue 54, part 1): owner-only, as the service's owner check says.
 */
export const requestPayoutInstructionAction = sessionAction(args(z.unknown()), ([input], { resellerId, wallet }) =>
  requestInstruction(getDb(), { resellerId, wallet, input }),
);

/** Records the owner's signature of the instruction: it applies at once, or after the delay for another wallet or a cap raised. */
export const signPayoutInstructionAction = sessionAction(args(confirmInput), ([input], { resellerId, wallet }) =>
  signInstruction(getDb(), { resellerId, wallet, ...input }),
);

/** Stops automatic payouts at once (no signature needed to stop paying). */
export const revokePayoutInstructionAction = sessionAction(noArgs, async (_args, { resellerId, wallet }) => {
  await revokeInstruction(getDb(), { resellerId, wallet });
  return null;
});

/** A key's own markup (a channel's), or null for the reseller's; the service checks the cap (INVALID_MARKUP). */
export const setKeyMarkupAction = sessionAction(
  args(id, z.number().nullable().catch(Number.NaN)),
  async ([keyId, markupBps], { resellerId }) => {
    await setKeyMarkup(getDb(), { resellerId, keyId, markupBps });
    return null;
  },
);

/** A widget's settings; the service validates every field (lib/channels). */
const widgetSettings = z.record(z.string(), z.unknown()).catch({});

export const createWidgetAction = sessionAction(args(widgetSettings), ([input], { resellerId }) =>
  createWidget(getDb(), { resellerId, input }),
);

export const updateWidgetAction = sessionAction(args(id, widgetSettings), ([widgetId, input], { resellerId }) =>
  updateWidget(getDb(), { resellerId, widgetId, input }),
);

/** `enabled`: anything but true disables. */
export const setWidgetEnabledAction = sessionAction(args(id, z.boolean().catch(false)), async ([widgetId, enabled], { resellerId }) => {
  await setWidgetEnabled(getDb(), { resellerId, widgetId, enabled });
  return null;
});

/**
 * The reseller's brand (docs/widgets.md, Brand): name, accent, support contact, terms link and
 * the logo (kept, removed, or a new one in base64). The service checks every field and answers
 * INVALID_REQUEST with `issues` (field, stable reason, message) for the form. The logo travels as
 * base64 in the JSON arguments because the guard before Next (lib/http/next-guard.ts) takes
 * only text/plain JSON action bodies (a multipart one is refused: React's decoder fails on
 * malformed ones with a 500); its text is capped here, before anything is decoded.
 */
const brandInput = z
  .object({
    name: z.string().max(1000),
    accent: z.string().max(100),
    support: z.string().max(1000),
    terms: z.string().max(2100),
    logo: z.union([
      z.object({ keep: z.literal(true) }).strict(),
      z.object({ remove: z.literal(true) }).strict(),
      // Over the largest logo's base64 by a margin, so that one a little too large gets the service's LOGO_TOO_LARGE.
      z.object({ base64: z.string().max(200_000) }).strict(),
    ]),
  })
  .strict();

export const setBrandAction = sessionAction(args(brandInput), ([input], { resellerId }) => setBrand(getDb(), { resellerId, input }));
