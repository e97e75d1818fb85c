import { describe, expect, it } from "vitest";
import { alreadyHad, fingerprint, MESSAGE_LIMIT, withMessage } from "../../src/run/messages.js";
import type { Pointer } from "../../src/pointer/schema.js";

const AT = "2026-11-25T00:00:00.000Z";
const base: Pointer = { version: 1, agent: "claude", id: "x", state: "confirmed", cwd: "/w", capturedAt: AT, source: { rule: "r" }, history: [] };

describe("message fingerprints", () => {
  it("are the sha256 of the text, never the text", () => {
    expect(fingerprint("hello")).toBe("2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
    expect(JSON.stringify(withMessage([], fingerprint("a secret task"), AT))).not.toContain("secret");
  });

  it("tell a message the session had from a new one, byte for byte", () => {
    const pointer = { ...base, messages: withMessage([], fingerprint("fix the build"), AT) };
    expect(alreadyHad(pointer, fingerprint("fix the build"), false)).toBe(true);
    expect(alreadyHad(pointer, fingerprint("fix the build "), false)).toBe(false);
    expect(alreadyHad(base, fingerprint("fix the build"), false)).toBe(false);
  });

  it("by text, count only the last message as had: a retry; \"yes\", \"no\", \"yes\" are three messages", () => {
    let messages = withMessage([], fingerprint("yes"), AT);
    messages = withMessage(messages, fingerprint("no"), AT);
    const pointer = { ...base, messages };
    expect(alreadyHad(pointer, fingerprint("no"), false)).toBe(true);
    expect(alreadyHad(pointer, fingerprint("yes"), false)).toBe(false);
  });

  it("by chat ID, count any of the last 50 as had: a redelivery, however late", () => {
    let messages = withMessage([], fingerprint("yes", "1001"), AT);
    messages = withMessage(messages, fingerprint("no", "1002"), AT);
    const pointer = { ...base, messages };
    expect(alreadyHad(pointer, fingerprint("yes", "1001"), true)).toBe(true);
    expect(alreadyHad(pointer, fingerprint("yes", "1003"), true)).toBe(false);
  });

  it("with a message ID, are the ID's: the same text under two IDs is two messages, and no text is taken for an ID", () => {
    expect(fingerprint("yes", "1001")).toBe(fingerprint("no", "1001"));
    expect(fingerprint("yes", "1001")).not.toBe(fingerprint("yes", "1002"));
    expect(fingerprint("yes", "1001")).not.toBe(fingerprint("1001"));
    expect(fingerprint("yes", "1001")).not.toBe(fingerprint("yes"));
  });

  it("keep the newest 50, each message once, a repeated one moved to the end", () => {
    let messages = withMessage([], fingerprint("m0"), AT);
    for (let i = 1; i <= 60; i++) messages = withMessage(messages, fingerprint(`m${i}`), AT);
    expect(messages).toHaveLength(MESSAGE_LIMIT);
    expect(messages[0]?.sha256).toBe(fingerprint("m11"));
    messages = withMessage(messages, fingerprint("m30"), AT);
    expect(messages).toHaveLength(MESSAGE_LIMIT);
    expect(messages.at(-1)?.sha256).toBe(fingerprint("m30"));
    expect(messages.filter((m) => m.sha256 === fingerprint("m30"))).toHaveLength(1);
  });
});
