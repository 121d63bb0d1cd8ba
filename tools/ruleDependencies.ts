import { loadPromql } from "../src/promql/syntax.js";
import { RuleDependencies, seriesName, seriesQuery } from "../src/results/ruleDependencies.js";
import { type RuleEntry, ruleEntries } from "../src/results/rules.js";
import { parseJsonBytes } from "../src/util/json.js";
import { getFromWorkspace, type WorkspaceArgs } from "./common.js";
import { type ToolCall, ToolError } from "./types.js";

/**
 * The longest series query sent: a GET's URL carries it, and servers and proxies refuse long URLs (8 KB is
 * a common limit). Past it, has_series is left out with a note rather than split into several queries.
 */
const MAX_QUERY_CHARS = 6_000;

/** Which recording rules have series now, or why that is not known (a note for the answer). */
export type RecordingSeries =
  | { series: ReadonlySet<string>; note?: undefined }
  | { series?: undefined; note: string };

/**
 * The names among `names` (recording rules) that have series now, asked in one instant query
 * (seriesQuery). A failure does not fail the caller's answer: it gets a note instead, saying why.
 */
export async function recordingSeries(
  args: WorkspaceArgs,
  call: ToolCall,
  names: readonly string[],
): Promise<RecordingSeries> {
  const query = seriesQuery(names);
  if (query.length > MAX_QUERY_CHARS) {
    return {
      note: `has_series is left out: the alerting rules read ${names.length} recording rules, too many to look up in one query.`,
    };
  }
  try {
    const series = await getFromWorkspace(args, call, { path: "/query", params: { query } }, () => {
      const found = new Set<string>();
      return {
        element: (raw: Uint8Array) => {
          const name = seriesName(parseJsonBytes(raw));
          if (name !== undefined) found.add(name);
        },
        finish: () => found,
      };
    });
    return { series };
  } catch (error) {
    const why = error instanceof ToolError ? `: ${error.message}` : "";
    return { note: `has_series is left out: the query for the recording rules' series failed${why}` };
  }
}

/** Every rule of the workspace, alerting rules with their dependencies; `note` as ListRules's. */
export interface RulesRead {
  rules: RuleEntry[];
  note?: string;
}

/**
 * Every rule (`/api/v1/rules`, one request), in Prometheus's order, each alerting rule with `depends_on`
 * and, when it cannot fire, `can_fire: false` and `why` — what ListRules answers, whole, for a caller that
 * summarises it (ruleFindings). Holds the rules (small objects) rather than streaming them into a budget.
 */
export async function rulesWithDependencies(args: WorkspaceArgs, call: ToolCall): Promise<RulesRead> {
  const promql = await loadPromql();
  const read = await getFromWorkspace(args, call, { path: "/rules", params: {} }, () => {
    const dependencies = new RuleDependencies(promql);
    const rules: RuleEntry[] = [];
    return {
      format: { streamedKey: "groups" },
      element: (raw: Uint8Array) => {
        for (const entry of ruleEntries(parseJsonBytes(raw), {})) {
          dependencies.see(entry);
          dependencies.listed(entry);
          rules.push(entry);
        }
      },
      finish: () => ({ dependencies, rules }),
    };
  });
  const names = read.dependencies.recordingsRead();
  const looked = names.length > 0 ? await recordingSeries(args, call, names) : { series: new Set<string>() };
  return {
    rules: read.rules.map((rule) => read.dependencies.present(rule, looked.series)),
    ...(looked.note !== undefined ? { note: looked.note } : {}),
  };
}
