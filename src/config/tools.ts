/**
 * TOOLS: which tools are served, from names and groups of tools/catalog.json. The one reading of it:
 * the function's configuration and the role's statements (scripts/role-statements.cjs) both use it.
 */
import catalog from "../../tools/catalog.json" with { type: "json" };
import { entriesOf } from "./errors.js";

/** Every tool by group, in tools/list order (tools/catalog.json). */
export const TOOL_GROUPS: Readonly<Record<string, readonly string[]>> = catalog.groups;
export const ALL_TOOLS: readonly string[] = Object.values(TOOL_GROUPS).flat();

/** The tool that lists AMP workspaces: of no use with a plain Prometheus. */
const WORKSPACE_LISTING = "GetAvailableWorkspaces";

/** TOOLS' entries: comma-separated, trimmed, the empty ones dropped (`,` names none). */
export function toolEntries(raw: string): string[] {
  return entriesOf(raw);
}

/** The first entry that is neither a tool nor a group, if any. */
export function unknownToolEntry(entries: readonly string[]): string | undefined {
  return entries.find(
    (entry) => entry !== "all" && TOOL_GROUPS[entry] === undefined && !ALL_TOOLS.includes(entry),
  );
}

/** What is wrong with TOOLS' entries, as the `expected …` of its error line; undefined when nothing. */
export function checkToolEntries(entries: readonly string[]): string | undefined {
  const entry = unknownToolEntry(entries);
  if (entry !== undefined) {
    return `tool names or groups, comma-separated: ${entry} is neither (groups: ${[...Object.keys(TOOL_GROUPS), "all"].join(", ")}; tools: ${ALL_TOOLS.join(", ")})`;
  }
  return entries.length === 0 ? "at least one tool name or group" : undefined;
}

/**
 * The served tools, in tools/list order, for TOOLS' entries (checked: checkToolEntries). Unset: all, or
 * core under PYTHON_COMPAT (a Python client sees the five). A plain Prometheus has no workspaces to
 * list: GetAvailableWorkspaces is served only when named itself.
 */
export function servedTools(
  entries: readonly string[] | undefined,
  pythonCompat: boolean,
  plainPrometheus: boolean,
): string[] {
  const chosen = new Set<string>();
  for (const entry of entries ?? [pythonCompat ? "core" : "all"]) {
    const group = entry === "all" ? ALL_TOOLS : TOOL_GROUPS[entry];
    if (group === undefined) chosen.add(entry);
    else for (const tool of group) if (!(plainPrometheus && tool === WORKSPACE_LISTING)) chosen.add(tool);
  }
  return ALL_TOOLS.filter((tool) => chosen.has(tool));
}
