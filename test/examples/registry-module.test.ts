/**
 * registry/sessionpin/modules/sessionpin in the coder/registry's own layout, checked by the rules its
 * README validator (cmd/readmevalidation at 6be121e4) and AGENTS.md state, since `terraform test`
 * needs the Coder provider, which this machine cannot download: the files a module must have, the
 * README's front matter and h1 section, and that main.tf, main.tftest.hcl and scripts/install.sh
 * agree on their names. `terraform fmt -check` runs where terraform is installed.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MODULE } from "./workspace.js";

const read = (name: string): string => readFileSync(join(MODULE, name), "utf8");
const FRONT_MATTER_KEYS = ["description", "icon", "display_name", "verified", "tags", "supported_os"];
const hasTerraform = spawnSync("terraform", ["version"], { encoding: "utf8" }).status === 0;

describe("the sessionpin module's layout", () => {
  it("has main.tf, README.md, a .tftest.hcl and an executable scripts/install.sh", () => {
    const files = readdirSync(MODULE);
    expect(files).toEqual(expect.arrayContaining(["main.tf", "README.md", "scripts"]));
    expect(files.filter((name) => name.endsWith(".tftest.hcl"))).not.toEqual([]);
    accessSync(join(MODULE, "scripts/install.sh"), constants.X_OK);
    const syntax = spawnSync("bash", ["-n", join(MODULE, "scripts/install.sh")], { encoding: "utf8" });
    expect(syntax.stderr).toBe("");
  });

  it("has a README the registry's validator takes: front matter, one h1 whose section has a paragraph and one tf block with a version", () => {
    const [, front = "", body = ""] = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(read("README.md")) ?? [];
    const fields = Object.fromEntries(front.split("\n").map((line) => /^(\w+):\s*(.*)$/.exec(line)).filter((m) => m !== null).map((m) => [m[1], m[2]]));
    expect(Object.keys(fields).filter((key) => !FRONT_MATTER_KEYS.includes(key))).toEqual([]);
    expect(fields["description"]).toMatch(/\S/);
    expect(fields["icon"]).toMatch(/^\.\.\/\.\.\/\.\.\/\.\.\/\.icons\/[\w.-]+\.svg$/);
    expect(fields["verified"]).toBe("false");
    const tags = /^\[(.*)\]$/.exec(fields["tags"] ?? "")?.[1]?.split(",").map((tag) => tag.trim()) ?? [];
    expect(tags.length).toBeGreaterThan(0);
    for (const tag of tags) expect(encodeURIComponent(tag)).toBe(tag);

    const lines = body.trim().split("\n");
    expect(lines[0]).toMatch(/^# \S/);
    // Headers outside code blocks: one h1, and no level skipped going down.
    let inCode = false;
    const levels: number[] = [];
    const h1Section: string[] = [];
    for (const line of lines) {
      if (line.startsWith("```")) {
        expect(line.startsWith("```hcl"), "hcl blocks must be tf").toBe(false);
        inCode = !inCode;
      } else if (!inCode && /^#+ /.test(line)) {
        levels.push(line.indexOf(" "));
      }
      if (levels.length === 1) h1Section.push(line);
    }
    expect(inCode).toBe(false);
    expect(levels.filter((level) => level === 1)).toHaveLength(1);
    levels.forEach((level, i) => expect(level - (levels[i - 1] ?? 0)).toBeLessThanOrEqual(1));
    const blocks = h1Section.join("\n").match(/^```tf\n[\s\S]*?^```$/gm) ?? [];
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toMatch(/^\s*version\s+=\s+"\d+\.\d+\.\d+"/m);
    expect(h1Section.slice(1).some((line) => line.trim() !== "" && !line.startsWith("```") && !line.startsWith("<"))).toBe(true);
    // The registry generates the tables of inputs and outputs itself.
    expect(body).not.toMatch(/^\|.*\|\s*$/m);
  });

  it("main.tf, its tests and the install script agree on names", () => {
    const main = read("main.tf");
    const declared = new Set([...main.matchAll(/^variable "(\w+)"/gm)].map((m) => m[1]));
    expect([...new Set([...main.matchAll(/\bvar\.(\w+)/g)].map((m) => m[1]))].filter((name) => !declared.has(name))).toEqual([]);
    const tests = readdirSync(MODULE).filter((name) => name.endsWith(".tftest.hcl")).map(read).join("\n");
    const given = [...tests.matchAll(/^\s+(\w+)\s+=/gm)].map((m) => m[1]).filter((name) => !["command", "condition", "error_message", "expect_failures"].includes(name ?? ""));
    expect([...new Set(given)].filter((name) => !declared.has(name))).toEqual([]);
    const passed = new Set([...main.matchAll(/\b(ARG_\w+)=/g)].map((m) => m[1]));
    const script = read("scripts/install.sh");
    const readByScript = new Set([...script.matchAll(/\$\{(ARG_\w+)/g)].map((m) => m[1]));
    expect([...passed].sort()).toEqual([...readByScript].sort());
  });

  it("writes a coder_script and a post_install_script that bash can parse, once Terraform filled them in", () => {
    const main = read("main.tf");
    const heredocs = new Map([...main.matchAll(/^\s*(\w+)\s*=\s*<<-EOT\n([\s\S]*?)\n\s*EOT$/gm)].map((m) => [m[1], dedent(m[2] ?? "")]));
    const fn = fill(heredocs.get("install_function") ?? "", "");
    const scripts = [heredocs.get("script"), heredocs.get("value")].map((text) => fill(text ?? "", fn));
    expect(scripts.map((text) => text.split("\n")[0])).toEqual(["#!/bin/bash", "#!/bin/bash"]);
    for (const text of scripts) {
      expect(text).toContain("sessionpin_install() {");
      const syntax = spawnSync("bash", ["-n"], { input: text, encoding: "utf8" });
      expect(syntax.stderr, text).toBe("");
      expect(syntax.status).toBe(0);
    }
  });

  it.skipIf(!hasTerraform)("is formatted as `terraform fmt` writes it", () => {
    const fmt = spawnSync("terraform", ["fmt", "-check", "-diff", "-no-color", MODULE], { encoding: "utf8", timeout: 30_000 });
    expect(fmt.stdout).toBe("");
    expect(fmt.status).toBe(0);
  });
});

/** A `<<-EOT` heredoc's text as Terraform gives it: the common indentation of its lines removed. */
function dedent(text: string): string {
  const lines = text.split("\n");
  const indent = Math.min(...lines.filter((line) => line.trim() !== "").map((line) => /^ */.exec(line)?.[0].length ?? 0));
  return lines.map((line) => line.slice(indent)).join("\n");
}

/** Fills every `${…}` (innermost first) with a plain word, and `${local.install_function}` with `fn`. */
function fill(text: string, fn: string): string {
  let filled = text.replaceAll("${local.install_function}", fn);
  for (let before = ""; before !== filled; ) {
    before = filled;
    filled = filled.replace(/\$\{[^${}]*\}/g, "filled");
  }
  return filled;
}
