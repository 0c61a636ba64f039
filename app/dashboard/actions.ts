"use server";

import { z } from "zod";
import { args, noArgs, sessionAction, text } from "@/app/_server/action";
import {
  changeRole,
  confirmWithdrawal,
  createApiKey,
  createEndpoint,
  createInvite,
  createWidget,
  endWalletSessions,
  getDb,
  leaveTeam,
  quoteWithdrawal,
  redeliverFailed,
  redeliverOne,
  removeMember,
  requestInstruction,
  revokeApiKey,
  revokeInstruction,
  revokeInvite,
  rotateApiKey,
  rotateEndpointSecret,
  sendTestEvent,
  setBrand,
  setEndpointEnabled,
  setKeyMarkup,
  setMarkup,
  setWidgetEnabled,
  signInstruction,
  switchSessionTeam,
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

export const createKeyAction = sessionAction("action:createKeyAction", args(text(200)), async ([name], { resellerId }) =>
  newKey(await createApiKey(getDb(), { resellerId, name })),
);

export const rotateKeyAction = sessionAction("action:rotateKeyAction", args(id), async ([keyId], { resellerId }) =>
  newKey(await rotateApiKey(getDb(), { resellerId, keyId })),
);

export const revokeKeyAction = sessionAction("action:revokeKeyAction", args(id), async ([keyId], { resellerId }) => {
  await revokeApiKey(getDb(), { resellerId, keyId });
  return null;
});

/** The new endpoint's URL and events; the service checks both (anything but an object reads as neither). */
const newEndpoint = z.object({ url: text(2000), events: z.unknown() }).catch({ url: "", events: undefined });

/** Adds a webhook endpoint; the answer holds its secret, shown once. */
export const createWebhookEndpointAction = sessionAction(
  "action:createWebhookEndpointAction",
  args(newEndpoint),
  ([input], { resellerId }) => createEndpoint(getDb(), { resellerId, url: input.url, events: input.events }),
);

export const rotateWebhookSecretAction = sessionAction("action:rotateWebhookSecretAction", args(id), ([endpointId], { resellerId }) =>
  rotateEndpointSecret(getDb(), { resellerId, endpointId }),
);

/** `enabled`: anything but true disables. */
export const setWebhookEnabledAction = sessionAction(
  "action:setWebhookEnabledAction",
  args(id, z.boolean().catch(false)),
  ([endpointId, enabled], { resellerId }) => setEndpointEnabled(getDb(), { resellerId, endpointId, enabled }),
);

export const sendWebhookTestAction = sessionAction("action:sendWebhookTestAction", args(id), async ([endpointId], { resellerId }) => ({
  messageId: await sendTestEvent(getDb(), { resellerId, endpointId }),
}));

/** Sends one of the reseller's webhook deliveries again (lib/webhooks/redeliver.ts); an id that is not a whole number is none (NOT_FOUND). */
export const redeliverWebhookAction = sessionAction(
  "action:redeliverWebhookAction",
  args(z.number().int().catch(0)),
  ([deliveryId], { resellerId }) => redeliverOne(getDb(), { resellerId, deliveryId }),
);

/** A time range of the dashboard's form: two instants with their offset; the service checks that one comes before the other. */
const timeRange = z.object({ from: z.iso.datetime({ offset: true }), to: z.iso.datetime({ offset: true }) }).strict();

/** Sends again an endpoint's failed deliveries created in [from, to), at most MAX_REDELIVER a click; answers how many were queued. */
export const redeliverFailedWebhooksAction = sessionAction(
  "action:redeliverFailedWebhooksAction",
  args(id, timeRange),
  ([endpointId, range], { resellerId }) =>
    redeliverFailed(getDb(), { resellerId, endpointId, from: new Date(range.from), to: new Date(range.to) }),
);

/** Not a number reads as NaN, which the service refuses (INVALID_MARKUP) like any markup that is not a whole number in range. */
export const setMarkupAction = sessionAction(
  "action:setMarkupAction",
  args(z.number().catch(Number.NaN)),
  async ([markupBps], { resellerId }) => {
    const r = await setMarkup(getDb(), { resellerId, markupBps });
    return { markupBps: r.markupBps };
  },
);

/** Ends every session of this member's wallet, in every team, on every device, this one included. */
export const signOutEverywhereAction = sessionAction("action:signOutEverywhereAction", noArgs, async (_, { wallet }) => {
  await endWalletSessions(getDb(), { walletAddress: wallet });
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
export const quoteWithdrawalAction = sessionAction("action:quoteWithdrawalAction", args(quoteInput), ([input], { resellerId }) =>
  quoteWithdrawal(getDb(), { resellerId, ...input }),
);

/**
 * Queues a withdrawal: the session alone is not enough, the wallet's fresh EIP-712 signature
 * of the quoted terms is (a stolen cookie cannot withdraw). Reserves the balances at once.
 */
export const confirmWithdrawalAction = sessionAction(
  "action:confirmWithdrawalAction",
  args(confirmInput),
  ([input], { resellerId, wallet }) => confirmWithdrawal(getDb(), { resellerId, ...input, signer: wallet }),
);

/**
 * Automatic payouts (lib/payouts, docs/payouts.md): the terms of a standing instruction to sign.
 * The service checks the input itself (its own schema: the trigger, the threshold, the caps).
 * Owners only (lib/teams/roles.ts), and the service checks the signer is an owner too.
 */
export const requestPayoutInstructionAction = sessionAction(
  "action:requestPayoutInstructionAction",
  args(z.unknown()),
  ([input], { resellerId, wallet }) => requestInstruction(getDb(), { resellerId, wallet, input }),
);

/** Records the owner's signature of the instruction: it applies at once, or after the delay for another wallet or a cap raised. */
export const signPayoutInstructionAction = sessionAction(
  "action:signPayoutInstructionAction",
  args(confirmInput),
  ([input], { resellerId, wallet }) => signInstruction(getDb(), { resellerId, wallet, ...input }),
);

/** Stops automatic payouts at once (no signature needed to stop paying). */
export const revokePayoutInstructionAction = sessionAction(
  "action:revokePayoutInstructionAction",
  noArgs,
  async (_args, { resellerId, wallet }) => {
    await revokeInstruction(getDb(), { resellerId, wallet });
    return null;
  },
);

/** A key's own markup (a channel's), or null for the reseller's; the service checks the cap (INVALID_MARKUP). */
export const setKeyMarkupAction = sessionAction(
  "action:setKeyMarkupAction",
  args(id, z.number().nullable().catch(Number.NaN)),
  async ([keyId, markupBps], { resellerId }) => {
    await setKeyMarkup(getDb(), { resellerId, keyId, markupBps });
    return null;
  },
);

/** A widget's settings; the service validates every field (lib/channels). */
const widgetSettings = z.record(z.string(), z.unknown()).catch({});

export const createWidgetAction = sessionAction("action:createWidgetAction", args(widgetSettings), ([input], { resellerId }) =>
  createWidget(getDb(), { resellerId, input }),
);

export const updateWidgetAction = sessionAction(
  "action:updateWidgetAction",
  args(id, widgetSettings),
  ([widgetId, input], { resellerId }) => updateWidget(getDb(), { resellerId, widgetId, input }),
);

/** `enabled`: anything but true disables. */
export const setWidgetEnabledAction = sessionAction(
  "action:setWidgetEnabledAction",
  args(id, z.boolean().catch(false)),
  async ([widgetId, enabled], { resellerId }) => {
    await setWidgetEnabled(getDb(), { resellerId, widgetId, enabled });
    return null;
  },
);

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

export const setBrandAction = sessionAction("action:setBrandAction", args(brandInput), ([input], { resellerId }) =>
  setBrand(getDb(), { resellerId, input }),
);

// The team (issue 54, lib/teams): invitations, roles and members are the owners'; anyone may leave or switch teams.

/** An invitation link for `role`; the answer holds its secret, shown once (only its hash is kept). */
export const createInviteAction = sessionAction("action:createInviteAction", args(text(20)), async ([role], { resellerId, wallet }) => {
  const invite = await createInvite(getDb(), { resellerId, actor: wallet, role });
  return { id: invite.id, role: invite.role, path: `/join/${invite.secret}`, expiresAt: invite.expiresAt.toISOString() };
});

export const revokeInviteAction = sessionAction("action:revokeInviteAction", args(id), async ([inviteId], { resellerId, wallet }) => {
  await revokeInvite(getDb(), { resellerId, actor: wallet, inviteId });
  return null;
});

/** The role is checked by the service (INVALID_REQUEST); the last owner stays owner (LAST_OWNER). */
export const setMemberRoleAction = sessionAction(
  "action:setMemberRoleAction",
  args(id, text(20)),
  async ([memberId, role], { resellerId, wallet }) => {
    const m = await changeRole(getDb(), { resellerId, actor: wallet, memberId, role });
    return { id: m.id, role: m.role };
  },
);

/** Removes a member; their sessions in this team end at their next request. */
export const removeMemberAction = sessionAction("action:removeMemberAction", args(id), async ([memberId], { resellerId, wallet }) => {
  await removeMember(getDb(), { resellerId, actor: wallet, memberId });
  return null;
});

/** Leaves the session's team (the last owner cannot: LAST_OWNER); this session ends with it. */
export const leaveTeamAction = sessionAction("action:leaveTeamAction", noArgs, async (_, { resellerId, wallet }) => {
  await leaveTeam(getDb(), { resellerId, walletAddress: wallet });
  return null;
});

/** Points this session at another of the wallet's teams (NOT_FOUND when it is not a member there). */
export const switchTeamAction = sessionAction("action:switchTeamAction", args(id), async ([teamId], { sessionId, wallet }) => {
  await switchSessionTeam(getDb(), { sessionId, walletAddress: wallet, resellerId: teamId });
  return null;
});
