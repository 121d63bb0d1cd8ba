import type * as z from "zod";
import { loadPromql } from "../../src/promql/syntax.js";
import { type EntryList, ListCollector } from "../../src/results/entryList.js";
import { RuleDependencies } from "../../src/results/ruleDependencies.js";
import {
  compareRules,
  type RuleEntry,
  type RuleFilter,
  RuleTally,
  ruleEntries,
  ruleMatches,
} from "../../src/results/rules.js";
import type { listRulesArguments } from "../arguments.js";
import { expectList, getFromWorkspace, type WorkspaceArgs } from "../common.js";
import { recordingSeries } from "../ruleDependencies.js";
import type { ToolCall } from "../types.js";

/** The rules with errors a cut list's note names. */
const ERRORS_NAMED = 5;

/** ListRules's body: loaded on the tool's first call (tools/lazyRun.ts), not at a cold start. */
export async function run(args: z.output<typeof listRulesArguments>, call: ToolCall) {
  const filter: RuleFilter = {
    type: args.type ?? undefined,
    health: args.health ?? undefined,
    names: args.name ?? undefined,
    groups: args.group ?? undefined,
  };
  return expectList(await listRules(args, call, filter, args.limit ?? undefined), "rule list");
}

/**
 * The rules `filter` keeps, alerting rules with their dependencies. Every rule is read, whatever the
 * filter, in one request: an alerting rule's recording rules may be in any group, of the other type, of
 * another health. Only recording rules asked for alone (`type: record`) are filtered by Prometheus (since
 * 2.21); the rest is matched here, which every server's answer allows (rule_name[] and rule_group[]
 * arrived in 2.46, a health filter never did).
 */
async function listRules(
  args: WorkspaceArgs,
  call: ToolCall,
  filter: RuleFilter,
  limit: number | undefined,
): Promise<EntryList<RuleEntry> | undefined> {
  const promql = filter.type === "record" ? undefined : await loadPromql();
  /** The last attempt's (a retry reads the answer again, from the start). */
  let dependencies: RuleDependencies | undefined;
  let series: ReadonlySet<string> | undefined;
  // Filled in once the rules are read, before the list is fitted (see ListSpec.fields).
  const fields: { note?: string } = {};
  const list = await getFromWorkspace(
    args,
    call,
    { path: "/rules", params: { type: filter.type === "record" ? "record" : undefined } },
    () => {
      const tally = new RuleTally();
      const found = promql && new RuleDependencies(promql);
      dependencies = found;
      return new ListCollector<RuleEntry>(
        {
          key: "rules",
          noun: "rules",
          format: { streamedKey: "groups" },
          fields,
          entriesOf: (group) => {
            const entries = ruleEntries(group, {});
            for (const entry of entries) found?.see(entry);
            return entries;
          },
          accepts: (entry) => ruleMatches(entry, filter),
          compare: compareRules,
          orderWords: "by group, then name",
          tally: (entry) => {
            tally.add(entry);
            found?.listed(entry);
          },
          present: (entry) => (found ? found.present(entry, series) : entry),
          nextStep: () => `There are ${tally.words(ERRORS_NAMED)}. Narrow with name, group, type or health.`,
          emptyHint: emptyHint(filter),
        },
        { budget: call.budget, limit },
      );
    },
  );
  const read = dependencies?.recordingsRead() ?? [];
  if (list !== undefined && read.length > 0) {
    const looked = await recordingSeries(args, call, read);
    series = looked.series;
    if (looked.note !== undefined) fields.note = looked.note;
  }
  return list;
}

function emptyHint(filter: RuleFilter): string {
  if (filter.health !== undefined && filter.names === undefined && filter.groups === undefined) {
    return `No rule${filter.type === undefined ? "" : ` of type ${filter.type}`} has health ${filter.health}: ListRules without health lists every rule.`;
  }
  return filter.names !== undefined ||
    filter.groups !== undefined ||
    filter.type !== undefined ||
    filter.health !== undefined
    ? "No rule matches: name and group are exact (case-sensitive); ListRules without them lists every rule."
    : "This Prometheus has no rules loaded (with Amazon Managed Prometheus: no rule groups namespace in the workspace).";
}
