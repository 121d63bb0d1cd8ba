import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { backendEntrySchema } from "../../src/config/backendSchema.js";
import { parseBackends } from "../../src/config/backends.js";
import type { SettingMeta } from "../../src/config/fields.js";
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

/** The rows of docs/configuration.md's table of a backend's fields (`| field | meaning |`). */
function backendFieldRows(): Map<string, string> {
  const lines = readFileSync(join(ROOT, "docs/configuration.md"), "utf8").split("\n");
  const header = lines.findIndex((line) => /^\|\s*field\s*\|\s*meaning\s*\|/.test(line));
  expect(header, "a | field | meaning | table in docs/configuration.md").toBeGreaterThan(-1);
  const rows = new Map<string, string>();
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith("|")) break;
    const cells = /^\|\s*`([a-z_]+)`\s*\|([^|]*)\|/.exec(line);
    expect(cells, `a row naming one field: ${line.slice(0, 60)}`).not.toBeNull();
    const [, name = "", meaning = ""] = cells ?? [];
    rows.set(name, meaning.trim());
  }
  return rows;
}

describe("the BACKENDS entry schema and the docs' table of a backend's fields", () => {
  const shape = backendEntrySchema().shape;
  const FIELDS = Object.keys(shape) as (keyof typeof shape)[];
  const meta = (field: keyof typeof shape) => shape[field].meta() as unknown as SettingMeta;

  it("documents exactly the schema's fields, in its order, each default the schema names", () => {
    const rows = backendFieldRows();
    expect([...rows.keys()]).toEqual(FIELDS);
    const withDefault = FIELDS.filter((field) => meta(field).documentedDefault !== undefined);
    expect(withDefault).toEqual(["auth", "kind"]);
    for (const field of withDefault) {
      expect(rows.get(field), field).toContain(`default ${meta(field).documentedDefault}`);
    }
  });

  it("gives each field one line of documentation, and marks those that may hold a credential", () => {
    for (const field of FIELDS) {
      expect(meta(field).description.length, field).toBeGreaterThan(10);
      expect(meta(field).description, field).not.toContain("\n");
    }
    expect(FIELDS.filter((field) => meta(field).secret === true)).toEqual(["secret", "headers"]);
  });

  it("is what parseBackends reads: an unknown field is refused naming the schema's fields", () => {
    const rules = { inLambda: false, defaultRegion: "us-east-1" };
    expect(() => parseBackends('{"a": {"url": "http://p", "tenants": []}}', rules)).toThrow(
      `backend "a" with only the fields ${FIELDS.join(", ")}; not tenants`,
    );
    expect(parseBackends('{"a": {"url": " http://p "}}', rules)[0]).toMatchObject({
      url: "http://p",
      auth: "none",
      headers: {},
      isDefault: true,
    });
  });
});
