/**
 * What the serverless scripts (scripts/*.cjs) take from the application, compiled on the fly by
 * scripts/app-config.cjs: the configuration module (loadConfig, configWarnings, describeTarget…), and
 * the workspace, region and secret-name rules, so a deployment judges settings and names workspaces exactly as the
 * function does, with no copy of those rules to drift.
 */
export * from "./config.js";
export { ampRegionOfUrl, parseWorkspaceEntry, workspaceIdFromUrl } from "./prometheus/access.js";
export { parseBackends } from "./prometheus/backends.js";
export { REGION_PATTERN, REGION_SYNTAX } from "./prometheus/regions.js";
export { secretSourceOf } from "./prometheus/secrets.js";
