import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SETTINGS, settingMeta } from "../../src/config/index.js";

// The schema (src/config/schema.ts) is the one source of every setting's name, default and meaning:
// the docs' configuration table must list exactly its settings, each with the default it has.

const ROOT = join(import.meta.dirname, "..", "..");
type Name = keyof typeof SETTINGS;
const NAMES = Object.keys(SETTINGS) as Name[];

/** The configuration table's rows (`| variable | default | meaning |`), from the first doc that has it. */
function tableRows(): { file: string; rows: Map<string, string> } {
  for (const file of ["docs/configuration.md", "README.md"]) {
    const path = join(ROOT, file);
    if (!existsSync(path)) continue;
    const lines = readFileSync(path, "utf8").split("\n");
    const header = lines.findIndex((line) => /^\|\s*variable\s*\|\s*default\s*\|\s*meaning\s*\|/.test(line));
    if (header === -1) continue;
    const rows = new Map<string, string>();
    for (const line of lines.slice(header + 2)) {
      if (!line.startsWith("|")) break;
      const cells = /^\|\s*`([A-Z][A-Z0-9_]+)`\s*\|([^|]*)\|/.exec(line);
      expect(cells, `a row naming one variable: ${line.slice(0, 60)}`).not.toBeNull();
      const [, name = "", value = ""] = cells ?? [];
      rows.set(name, value.trim());
    }
    return { file, rows };
  }
  throw new Error(
    "no configuration table (| variable | default | meaning |) in docs/configuration.md or README.md",
  );
}

/** The default column a setting's schema entry says. */
function documentedDefault(name: Name): string {
  const meta = settingMeta(name);
  return meta.documentedDefault ?? (meta.fixedDefault === undefined ? "unset" : `\`${meta.fixedDefault}\``);
}

describe("the configuration schema and the docs' table", () => {
  it("documents every setting of the schema with its default, and no other", () => {
    const { file, rows } = tableRows();
    for (const name of NAMES) {
      expect(rows.has(name), `${name} in ${file}`).toBe(true);
      expect(rows.get(name), `${name}'s default in ${file}`).toBe(documentedDefault(name));
    }
    expect([...rows.keys()].filter((name) => !NAMES.includes(name as Name))).toEqual([]);
  });

  it("gives each setting one line of documentation", () => {
    for (const name of NAMES) {
      const description = settingMeta(name).description;
      expect(description.length, name).toBeGreaterThan(10);
      expect(description, name).not.toContain("\n");
    }
  });

  it("reads an unset setting as its fixed default spelled out, the default the deploy scripts pass", () => {
    const fixed = NAMES.filter((name) => settingMeta(name).fixedDefault !== undefined);
    expect(fixed).toContain("PROMETHEUS_AUTH");
    expect(fixed).toContain("MAX_BODY_BYTES");
    for (const name of fixed) {
      const schema = SETTINGS[name];
      expect(schema.parse(undefined), name).toEqual(schema.parse(settingMeta(name).fixedDefault));
    }
  });

  it("refuses a bad value with what it expected, for every kind of setting", () => {
    const bad: Partial<Record<Name, string>> = {
      PROMETHEUS_AUTH: "kerberos",
      MAX_BODY_BYTES: "12x",
      PYTHON_COMPAT: "maybe",
      TRACING: "sometimes",
      PROMETHEUS_URL: "ftp://example.com",
      TOOLS: "Nothing",
      METRICS_NAMESPACE: "AWS/Lambda",
      ALLOWED_REGIONS: "mars-1",
    };
    for (const [name, value] of Object.entries(bad)) {
      const result = SETTINGS[name as Name].safeParse(value);
      expect(result.success, name).toBe(false);
      expect(result.error?.issues[0]?.message, name).toMatch(/\S/);
    }
  });
});
