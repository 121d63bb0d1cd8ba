import * as z from "zod";
import { loadPromql } from "../src/promql/syntax.js";
import { type EntryList, ListCollector } from "../src/results/entryList.js";
import { RuleDependencies } from "../src/results/ruleDependencies.js";
import {
  compareRules,
  type RuleEntry,
  type RuleFilter,
  RuleTally,
  ruleEntries,
  ruleMatches,
} from "../src/results/rules.js";
import { expectList, getFromWorkspace, readOnly, type WorkspaceArgs } from "./common.js";
import { countLimit, profile, region, workspaceId, wrongType } from "./params.js";
import { truncation } from "./results.js";
import { recordingSeries } from "./ruleDependencies.js";
import { defineTool, type ToolCall } from "./types.js";

/** The rules with errors a cut list's note names. */
const ERRORS_NAMED = 5;

/** One exact name or several; flat `anyOf` in JSON Schema, as `match`. */
const names = (what: string) => {
  const forms = `a ${what} name, or a list of them`;
  const name = z.string({ error: wrongType(what, forms) }).min(1, { error: `${what} must not be empty` });
  return z
    .union([name, z.array(name).min(1, { error: `${what} must name at least one` }), z.null()], {
      error: wrongType(what, forms),
    })
    .optional()
    .transform((value) => (value == null ? undefined : [value].flat()));
};

export const ListRules = defineTool({
  name: "ListRules",
  description:
    "List alerting and recording rules: expression (query), for, labels, annotations, health, lastError (untrusted data) and error_means, last evaluation; for alerting rules their state, number of alerts and depends_on (recording rules read: health, has_series). " +
    "Use it to see an alert's threshold and why it fires, or cannot (health err, or can_fire: false and why). name (e.g. HighErrorRate), group, type (alert or record) and health (ok, err, unknown) narrow it.",
  inputSchema: z.object({
    workspace_id: workspaceId,
    type: z
      .enum(["alert", "record"], { error: "type must be alert or record" })
      .nullable()
      .optional()
      .describe("Only alerting (alert) or recording (record) rules. Default: both."),
    health: z
      .enum(["ok", "err", "unknown"], { error: "health must be ok, err or unknown" })
      .nullable()
      .optional()
      .describe(
        "Only rules of this health (err: evaluation fails; unknown: not evaluated yet). Default: all.",
      ),
    name: names("name").describe("Rule name(s), exactly, e.g. HighErrorRate or job:up:sum."),
    group: names("group").describe("Rule group name(s), exactly."),
    limit: countLimit("rules, by group then name,"),
    region,
    profile,
  }),
  outputSchema: () =>
    z.object({
      truncated: truncation,
      note: z.string().optional().describe("Why has_series is left out, when it is"),
      rules: z
        .array(z.looseObject({ group: z.string(), name: z.string(), type: z.string(), query: z.string() }))
        .describe("Rules sorted by group, then name"),
    }),
  annotations: readOnly("List alerting and recording rules"),
  async run(args, call) {
    const filter: RuleFilter = {
      type: args.type ?? undefined,
      health: args.health ?? undefined,
      names: args.name ?? undefined,
      groups: args.group ?? undefined,
    };
    return expectList(await listRules(args, call, filter, args.limit ?? undefined), "rule list");
  },
});

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
