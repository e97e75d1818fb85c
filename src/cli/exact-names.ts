import { readFileSync } from "node:fs";
import type { parseArgs } from "node:util";
import { exactBytes, exactString, nulSeparated } from "../bytes.js";

/*
 * Keys and message IDs as the bytes they were given. Node decodes argv and the environment as
 * UTF-8, every byte that is none becoming U+FFFD: `--key $'\xff'` and `--key $'\xfe'` were one
 * key, and two chat threads shared a session. This process's own command line and starting
 * environment are read again from /proc/self, and a value Node decoded with a U+FFFD in it is
 * taken from there when both agree on everything else (src/bytes.ts keeps the bytes in a string).
 * Where /proc cannot be read, the command line was rewritten, or the words cannot be told apart,
 * the value stays as Node decoded it.
 */

/**
 * `values` with `--key` and `--message-id` as the bytes they were on this process's command line
 * (/proc/self/cmdline), where Node's decoding lost some: each byte that is no UTF-8 kept apart,
 * not turned into U+FFFD. Where the command line cannot be read or `argv` is not part of it, as
 * Node gave them.
 */
export function exactNames<V>(argv: readonly string[], tokens: NonNullable<ReturnType<typeof parseArgs>["tokens"]>, names: ReadonlySet<string>, values: V): V {
  const named = tokens.filter((t) => t.kind === "option" && names.has(t.name) && t.value !== undefined && t.value.includes("\uFFFD"));
  if (named.length === 0) return values;
  const words = exactSlice(argv);
  if (words === undefined) return values;
  const exact: Record<string, unknown> = { ...(values as Record<string, unknown>) };
  for (const token of named) {
    if (token.kind !== "option") continue;
    const word = token.inlineValue ? words[token.index]?.slice((words[token.index] ?? "").indexOf("=") + 1) : words[token.index + 1];
    if (word !== undefined && Buffer.from(exactBytes(word)).toString("utf8") === token.value) exact[token.name] = word;
  }
  return exact as V;
}

/** `argv`, a run of this process's arguments, as their exact bytes; undefined when it cannot be told which run it is. */
function exactSlice(argv: readonly string[]): string[] | undefined {
  const all = ownArguments();
  if (all === undefined) return undefined;
  const given = process.argv.slice(2);
  const found = new Set<string>();
  let slice: string[] | undefined;
  for (let at = 0; at + argv.length <= given.length; at++) {
    if (!argv.every((word, i) => given[at + i] === word)) continue;
    slice = all.slice(at, at + argv.length);
    found.add(JSON.stringify(slice));
  }
  return found.size === 1 ? slice : undefined;
}

let own: string[] | undefined | null = null;

/** This process's arguments after the script, as exact strings, when /proc/self/cmdline agrees with process.argv. */
function ownArguments(): string[] | undefined {
  if (own !== null) return own;
  own = undefined;
  try {
    const words = nulSeparated(readFileSync("/proc/self/cmdline"));
    const given = process.argv.slice(2);
    const tail = words.slice(words.length - given.length);
    if (words.length >= given.length && tail.every((word, i) => word.toString("utf8") === given[i])) own = tail.map(exactString);
  } catch {
    // No /proc: the names are as Node decoded them.
  }
  return own;
}

/** A variable of this process's starting environment (/proc/self/environ) as its exact bytes, when it still says what `env` says. */
export function exactVariable(name: string, decoded: string): string {
  try {
    const prefix = Buffer.from(`${name}=`);
    const entry = nulSeparated(readFileSync("/proc/self/environ")).find((e) => e.subarray(0, prefix.length).equals(prefix));
    const value = entry?.subarray(prefix.length);
    if (value !== undefined && value.toString("utf8") === decoded) return exactString(value);
  } catch {
    // No /proc: as Node decoded it.
  }
  return decoded;
}
