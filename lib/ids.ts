import "server-only";
import crypto from "node:crypto";
import { base58 } from "@scure/base";

/** Unguessable identifiers: 128 random bits, base58 (no look-alike characters). */
export const newId = (bytes = 16): string => base58.encode(crypto.randomBytes(bytes));

/** Order ids are shown to end users and typed into support chats: lower-case hex, 96 bits. */
export const newOrderId = (): string => crypto.randomBytes(12).toString("hex");
