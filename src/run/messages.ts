import { sha256Hex } from "../digest.js";
import type { Pointer } from "../pointer/schema.js";

/** How many message fingerprints a pointer keeps: enough to tell a retried step from a new one. */
export const MESSAGE_LIMIT = 50;

type Fingerprint = NonNullable<Pointer["messages"]>[number];

/**
 * A message's identity without its text: pointers never hold what was said. With the chat
 * platform's ID for it (`--message-id`), that ID is its identity: "yes" twice is two messages.
 */
export function fingerprint(text: string, messageId?: string): string {
  return sha256Hex(messageId === undefined ? text : `message-id\0${messageId}`);
}

/**
 * Whether the session already took a turn with the message of this fingerprint. A message known by
 * its chat ID (`byId`) is had when any of the last MESSAGE_LIMIT was it: a redelivery. One known
 * only by its text is had when it was the last one: a retried step or a delivery made twice; the
 * same words later ("yes", "no", "yes") are a new message.
 */
export function alreadyHad(pointer: Pointer, sha256: string, byId: boolean): boolean {
  const messages = pointer.messages ?? [];
  return byId ? messages.some((message) => message.sha256 === sha256) : messages.at(-1)?.sha256 === sha256;
}

/** `messages` with the fingerprint `sha256` added as the newest, each once, at most MESSAGE_LIMIT. */
export function withMessage(messages: readonly Fingerprint[], sha256: string, at: string): Fingerprint[] {
  return [...messages.filter((message) => message.sha256 !== sha256), { sha256, at }].slice(-MESSAGE_LIMIT);
}
