import type { Tool as ToolDescriptor } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";
import { builtInForm, forPlainPrometheus, tools } from "../../tools/index.js";
import { NUMERIC_PARAMETERS } from "../../tools/params.js";
import type { Tool } from "../../tools/types.js";
import { precomputedJsonSchemas, type ToolJsonSchemas } from "./toolSchemaCache.js";

/**
 * A tool as tools/list presents it. Its schemas are JSON Schema every client's dialect reads: one
 * `type` per schema (a union is `anyOf`), nothing that accepts any value unsaid. The input schema
 * declares the numbers clients send for times, steps and limits (`declareNumbers`, off under
 * PYTHON_COMPAT); the output schema is the results' shape alone (their fields are explained in the
 * descriptions and the README), so it costs the client's context as little as it can.
 */
export function describeTool(tool: Tool, declareNumbers: boolean): ToolDescriptor {
  const form = builtInForm(tool);
  const made = form === undefined ? undefined : precomputedJsonSchemas()?.[tool.name];
  const schemas = made === undefined ? schemasOf(tool) : made;
  const inputs = form === "plain" && made !== undefined ? made.plain : schemas.amp;
  return {
    name: tool.name,
    title: tool.annotations.title,
    description: tool.description,
    inputSchema: declareNumbers ? inputs.withNumbers : inputs.strings,
    outputSchema: schemas.output,
    annotations: tool.annotations,
  } as ToolDescriptor;
}

/** The input schema as declared (`strings`) and with its number branches; made for one form of the tool. */
function inputSchemasOf(schema: z.ZodType): ToolJsonSchemas["amp"] {
  const strings = singleTypes(jsonSchemaOf(schema, "input"));
  return { strings, withNumbers: withNumbers(strings) };
}

/** The tool's schemas as describeTool presents them, `amp` for `tool` as it is (whichever form it is). */
function schemasOf(tool: Tool): Omit<ToolJsonSchemas, "plain"> {
  return {
    amp: inputSchemasOf(tool.inputSchema),
    output: shapeOnly(jsonSchemaOf(tool.outputSchema, "output")) as Record<string, unknown>,
  };
}

/**
 * Every built-in tool's schemas as describeTool presents them, in both forms, by name: what the
 * shipped bundles store in place of src/mcp/toolSchemaCache.ts (scripts/esbuild-plugins.cjs), so their
 * first tools/list does not pay for zod's conversion (bench case cold-start).
 */
export function jsonSchemaTable(): Record<string, ToolJsonSchemas> {
  return Object.fromEntries(
    tools.map((tool) => [
      tool.name,
      { ...schemasOf(tool), plain: inputSchemasOf(forPlainPrometheus(tool).inputSchema) },
    ]),
  );
}

/** The schema as JSON Schema, without the `$schema` dialect line (MCP clients assume their own). */
function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io });
  return rest;
}

/**
 * The input schema with each parameter's `type` array (zod writes a nullable boolean `["boolean", "null"]`)
 * as `anyOf` of single types, as every other nullable parameter is: dialects such as Gemini's take one type.
 */
function singleTypes(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = schema.properties as Record<string, Record<string, unknown>> | undefined;
  if (properties === undefined) return schema;
  const single = Object.entries(properties).map(([name, property]) => {
    const { type, ...rest } = property;
    if (!Array.isArray(type)) return [name, property] as const;
    return [name, { ...rest, anyOf: type.map((one) => ({ type: one })) }] as const;
  });
  return { ...schema, properties: Object.fromEntries(single) };
}

/**
 * The input schema with a number branch beside the string forms of each parameter that accepts a
 * number (NUMERIC_PARAMETERS): `{anyOf: [{type: string, …}, {type: number, …}]}`.
 */
function withNumbers(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = schema.properties as Record<string, Record<string, unknown>> | undefined;
  if (properties === undefined) return schema;
  const declared = Object.entries(properties).map(([name, property]) => {
    const number = NUMERIC_PARAMETERS[name];
    if (number === undefined) return [name, property] as const;
    const { description, anyOf, ...rest } = property;
    const branches = Array.isArray(anyOf) ? anyOf : [rest];
    // The number goes right after the string form, before a null branch.
    const at = branches.findIndex((branch) => (branch as { type?: unknown }).type === "string") + 1;
    const withNumber = [...branches.slice(0, at), number, ...branches.slice(at)];
    const kept = Array.isArray(anyOf) ? rest : {};
    return [
      name,
      { ...kept, ...(description === undefined ? {} : { description }), anyOf: withNumber },
    ] as const;
  });
  return { ...schema, properties: Object.fromEntries(declared) };
}

/** Keywords that say nothing a JSON value does not already: zod's bounds of a safe integer. */
function isSafeIntegerBound(key: string, value: unknown): boolean {
  return (
    (key === "minimum" && value === Number.MIN_SAFE_INTEGER) ||
    (key === "maximum" && value === Number.MAX_SAFE_INTEGER)
  );
}

function isEmptyObject(value: unknown): boolean {
  return (
    typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 0
  );
}

/**
 * An output schema reduced to the results' shape: no descriptions; no `additionalProperties: {}`,
 * `properties: {}` or `propertyNames: {type: string}` (what JSON objects are anyway); no safe-integer
 * bounds; a `type` array as `anyOf` of single types (dialects such as Gemini's take one type).
 */
function shapeOnly(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(shapeOnly);
  if (typeof node !== "object" || node === null) return node;
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "description" || isSafeIntegerBound(key, value)) continue;
    if ((key === "additionalProperties" || key === "properties") && isEmptyObject(value)) continue;
    if (key === "propertyNames" && (value as { type?: unknown }).type === "string") continue;
    // Property maps hold names, not keywords: every value is a schema.
    kept[key] =
      key === "properties"
        ? Object.fromEntries(
            Object.entries(value as object).map(([name, schema]) => [name, shapeOnly(schema)]),
          )
        : shapeOnly(value);
  }
  const { type, ...rest } = kept;
  if (!Array.isArray(type)) return kept;
  return { ...rest, anyOf: type.map((single) => ({ type: single })) };
}
