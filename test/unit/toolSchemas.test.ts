import { describe, expect, it } from "vitest";
import { describeTool, jsonSchemaTable } from "../../src/mcp/toolSchemas.js";
import { tools } from "../../tools/index.js";

/** Every `type` keyword of a JSON Schema, with where it is (a property map holds names, not keywords). */
function typesOf(node: unknown, path = ""): Array<{ path: string; type: unknown }> {
  if (Array.isArray(node)) return node.flatMap((item, index) => typesOf(item, `${path}[${index}]`));
  if (typeof node !== "object" || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) => {
    if (key === "type") return [{ path, type: value }];
    if (key === "properties" && typeof value === "object" && value !== null) {
      return Object.entries(value).flatMap(([name, schema]) => typesOf(schema, `${path}.properties.${name}`));
    }
    return typesOf(value, `${path}.${key}`);
  });
}

describe("tools/list's input schemas", () => {
  it.each(tools.map((tool) => [tool.name, tool] as const))(
    "%s: one type per schema (a nullable switch such as exact is anyOf), with numbers declared or not",
    (_name, tool) => {
      for (const declareNumbers of [false, true]) {
        const { inputSchema } = describeTool(tool, declareNumbers);
        const types = typesOf(inputSchema);
        expect(types.length).toBeGreaterThan(0);
        for (const { path, type } of types) expect(typeof type, `${tool.name}${path}`).toBe("string");
      }
    },
  );

  it("the shipped bundles' precomputed table says the same (both forms)", () => {
    for (const [name, schemas] of Object.entries(jsonSchemaTable())) {
      for (const input of [schemas.amp, schemas.plain]) {
        for (const { path, type } of typesOf(input)) expect(typeof type, `${name}${path}`).toBe("string");
      }
    }
    const query = jsonSchemaTable().ExecuteQuery?.amp.strings as { properties: Record<string, unknown> };
    expect(query.properties.exact).toMatchObject({ anyOf: [{ type: "boolean" }, { type: "null" }] });
  });
});
