/**
 * What the serverless scripts (scripts/*.cjs) take from the application, compiled once into
 * dist/config/scripts.cjs (`npm run build:config`, run by `prepare`; scripts/app-config.cjs rebuilds it
 * when a source is newer): the configuration (loadConfig, configWarnings, describeTarget, the settings'
 * schema and the TOOLS reading), and the workspace, region and secret-name rules, so a deployment judges
 * settings, tools and workspaces exactly as the function does, with no copy of those rules to drift.
 */
export { ampRegionOfUrl, parseWorkspaceEntry, workspaceIdFromUrl } from "../prometheus/access.js";
export { REGION_PATTERN, REGION_SYNTAX } from "../prometheus/regions.js";
export { secretSourceOf } from "../prometheus/secrets.js";
export { parseBackends } from "./backends.js";
export * from "./index.js";
export { ALL_TOOLS, servedTools, TOOL_GROUPS, toolEntries, unknownToolEntry } from "./tools.js";

/** The default each setting has whatever the context (`sigv4`, `1048576`), as the variable spells it. */
import { SETTINGS, settingMeta } from "./schema.js";

export const FIXED_DEFAULTS: Readonly<Record<string, string>> = Object.fromEntries(
  (Object.keys(SETTINGS) as (keyof typeof SETTINGS)[]).flatMap((name) => {
    const fixed = settingMeta(name).fixedDefault;
    return fixed === undefined ? [] : [[name, fixed]];
  }),
);
