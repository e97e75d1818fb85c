import { z } from "zod";
import { unboundedReason } from "./regex.js";

/** What a user plugin file must hold; the defaults of what it may leave out are definePlugin's. */
const state = z.enum(["provisional", "confirmed"]);
const regex = z.string().min(1).superRefine((source, ctx) => {
  try {
    new RegExp(source);
  } catch (error) {
    ctx.addIssue({ code: "custom", message: `not a regular expression: ${(error as Error).message}` });
    return;
  }
  const unbounded = unboundedReason(source);
  if (unbounded !== undefined) ctx.addIssue({ code: "custom", message: unbounded });
});

export const DeclarativePluginSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, "lowercase letters, digits, '.', '_' or '-'"),
  names: z.array(z.string().min(1)).min(1),
  /** The whole-ID grammar; anchored for you when it is not. */
  grammar: regex,
  json: z
    .array(z.strictObject({
      name: z.string().min(1),
      field: z.string().min(1),
      when: z.record(z.string(), z.array(z.string())).optional(),
      state,
    }))
    .optional(),
  text: z
    .array(z.strictObject({
      name: z.string().min(1),
      pattern: regex.refine((source) => source.includes("(?<id>"), "needs a named group (?<id>…)"),
      state,
    }))
    .optional(),
  resume: z.array(z.string()).min(1).refine((words) => words.some((w) => w.includes("{id}")), "must contain {id}"),
  /** Options of the agent that take a value (so their values are not read as a prompt). */
  valueOptions: z.array(z.string()).optional(),
  /** How a cold start passes the prompt, and what a warm start removes. */
  prompt: z
    .strictObject({
      via: z.enum(["pty", "flag", "positional"]).optional(),
      /** With via "flag": the flag that takes the prompt (added on cold starts if absent). */
      flag: z.string().optional(),
      /** Options removed (with their values) on a warm start. */
      dropFlags: z.array(z.string()).optional(),
      /** Options without a value removed on a warm start (`--new`): the word after one stays. */
      dropSwitches: z.array(z.string()).optional(),
      /** Whether positional words are the prompt and dropped on a warm start. */
      dropPositionals: z.boolean().optional(),
      /**
       * Flags that make a run answer once and exit (`-p`): kept on warm starts, which deliver a
       * new message in argv or do not start the agent at all.
       */
      oneShot: z.array(z.string()).optional(),
    })
    .optional(),
  /**
   * What opens no conversation (`--version`, `login`): nothing is pinned or typed, and the agent
   * gets its argv as it is. `options`: any of them anywhere in argv (default `--version` and
   * `--help`; a list given replaces them, `[]` turns them off); `commands`: first words that are
   * subcommands, not a prompt.
   */
  noConversation: z
    .strictObject({
      options: z.array(z.string().regex(/^--?[^-\s=][^\s=]*$/, "an option: `-x` or `--name`, without a value")).optional(),
      commands: z.array(z.string().regex(/^[^-\s]\S*$/, "one word, not an option")).optional(),
    })
    .optional(),
  rejected: z.array(regex).optional(),
  transient: z.array(regex).optional(),
  /** The agent says in words when it cannot resume an ID (`rejected`): an exit without them is no rejection. */
  saysRejected: z.boolean().optional(),
  /** Output of a one-shot run meaning its turn failed though it exits 0: the message is not counted as had. */
  turnFailed: z.array(regex).optional(),
});
