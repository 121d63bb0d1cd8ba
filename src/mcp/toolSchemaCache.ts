type JsonSchema = Record<string, unknown>;

/**
 * One built-in tool's schemas as tools/list presents them (src/mcp/toolSchemas.ts): its input schema in
 * the AMP and plain-Prometheus forms, each as declared and with the number branches of its numeric
 * parameters, and its output schema.
 */
export interface ToolJsonSchemas {
  amp: { strings: JsonSchema; withNumbers: JsonSchema };
  plain: { strings: JsonSchema; withNumbers: JsonSchema };
  output: JsonSchema;
}

/**
 * The built-in tools' JSON Schemas by tool name, when they were made at build time: in the shipped
 * bundles, scripts/esbuild-plugins.cjs (toolSchemasAtBuild) replaces this module with one returning
 * them, made by src/mcp/toolSchemas.ts's jsonSchemaTable from the same sources. Run from sources there are
 * none, and describeTool makes them on the first tools/list.
 */
export function precomputedJsonSchemas(): Readonly<Record<string, ToolJsonSchemas>> | undefined {
  return undefined;
}
