import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { enginesRange, nodeCheck } from "../../src/doctor/checks.js";

describe("doctor's Node.js check", () => {
  it("says what package.json's engines says", () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, "../../package.json"), "utf8")) as { engines: { node: string } };
    expect(enginesRange()).toBe(pkg.engines.node);
  });

  it("passes the versions in range and fails the others, naming what is needed", () => {
    for (const version of ["20.19.0", "20.20.2", "21.7.3", "22.2.0", "22.12.0", "24.1.0"]) expect(nodeCheck(version).status, version).toBe("ok");
    for (const version of ["18.20.4", "20.18.1", "20.0.0"]) {
      const check = nodeCheck(version);
      expect(check.status, version).toBe("fail");
      expect(check.detail).toBe(`Node.js ${version} (sessionpin needs 20.19+)`);
    }
  });
});
