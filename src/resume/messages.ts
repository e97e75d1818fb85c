import { sha256Hex } from "../digest.js";
import type { Pointer } from "../pointer/schema.js";

/** How many message fingerprints a pointer keeps: enough to tell a retried step from a new one. */
export const MESSAGE_LIMIT = 50;

type Fingerprint = NonNullable<Pointer["messages"]>[number];

/** A message's identity without its text: pointers never hold what was said. */
export function fingerprint(text: string): string {
  return sha256Hex(text);
}

/** Whether the session already took a turn with this message. */
export function alreadyHad(pointer: Pointer, text: string): boolean {
  const sha256 = fingerprint(text);
  return (pointer.messages ?? []).some((message) => message.sha256 === sha256);
}

/** `messages` with `text` added as the newest, each message once, at most MESSAGE_LIMIT. */
export function withMessage(messages: readonly Fingerprint[], text: string, at: string): Fingerprint[] {
  const sha256 = fingerprint(text);
  return [...messages.filter((message) => message.sha256 !== sha256), { sha256, at }].slice(-MESSAGE_LIMIT);
}
