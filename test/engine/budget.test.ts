import { describe, expect, it } from "vitest";
import { budget, RULE_BUDGET_MS, withinBudget } from "../../src/engine/budget.js";

const busy = (ms: number): string[] => {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin: a rule that takes this long on a line
  }
  return ["found"];
};

// Torture suite, hostile user plugins: a plugin's text rule that needs long on a line stalls the
// agent's terminal for that long, on every such line.
describe("the rule budget", () => {
  it("cuts a budgeted rule off after one line over the budget, keeps what it found there, and says why", () => {
    const pattern = /x/;
    budget(pattern);
    expect(withinBudget(pattern, 10, () => ["quick"])).toEqual({ found: ["quick"] });
    const slow = withinBudget(pattern, 1_000_000, () => busy(RULE_BUDGET_MS + 50));
    expect(slow.found).toEqual(["found"]);
    expect(slow.cutOff).toMatch(new RegExp(`^\\d+ ms on a line of 1000000 characters, over the ${RULE_BUDGET_MS} ms budget$`));
    let ran = false;
    expect(withinBudget(pattern, 10, () => ((ran = true), ["more"]))).toEqual({ found: [] });
    expect(ran).toBe(false);
  });

  it("never times or cuts off a rule that is not budgeted (built-in rules)", () => {
    const pattern = /y/;
    expect(withinBudget(pattern, 10, () => busy(RULE_BUDGET_MS + 50))).toEqual({ found: ["found"] });
    expect(withinBudget(pattern, 10, () => ["again"])).toEqual({ found: ["again"] });
  });
});
