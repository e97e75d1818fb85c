import { expect, it } from "vitest";
import type { AgentPlugin, CallerSession } from "../../src/agents/types.js";

type Argv = readonly string[];

/** What a plugin must say of invocations, by kind. */
export interface Kinds {
  /** Invocations that open no conversation (`--version`, `--help`, subcommands). */
  readonly none: readonly Argv[];
  /** Conversations that cannot be pinned. */
  readonly unpinned?: readonly Argv[];
  /** Sessions the caller's own argv opens, with what callerSession says of each. */
  readonly caller?: ReadonlyArray<readonly [Argv, CallerSession]>;
  /** Conversations sessionpin pins itself: none of the above (look-alikes among them). */
  readonly pinned: readonly Argv[];
}

/** The kind the core finds, asking in its order: noConversation, unpinned, then callerSession. */
function kindOf(plugin: AgentPlugin, args: Argv): keyof Kinds {
  if (plugin.noConversation?.(args) !== undefined) return "none";
  if (plugin.unpinned?.(args) !== undefined) return "unpinned";
  return plugin.callerSession?.(args) !== undefined ? "caller" : "pinned";
}

/** One test per kind: each invocation is of its kind and of no other. */
export function itSaysKinds(plugin: AgentPlugin, kinds: Kinds): void {
  const only = (kind: keyof Kinds, all: readonly Argv[]) => {
    for (const args of all) expect(kindOf(plugin, args), JSON.stringify(args)).toBe(kind);
  };
  it("says what opens no conversation, --version and --help among them", () => only("none", kinds.none));
  if (kinds.unpinned !== undefined) it("says what conversation cannot be pinned", () => only("unpinned", kinds.unpinned ?? []));
  if (kinds.caller !== undefined) {
    it("says which session the caller's argv opens, with its ID only when the argv names a whole one", () => {
      for (const [args, session] of kinds.caller ?? []) {
        expect(kindOf(plugin, args), JSON.stringify(args)).toBe("caller");
        expect(plugin.callerSession?.(args), JSON.stringify(args)).toStrictEqual(session);
      }
    });
  }
  it("pins the rest, look-alikes included", () => only("pinned", kinds.pinned));
}
