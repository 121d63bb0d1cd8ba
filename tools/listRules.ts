import * as z from "zod";
import { ListCollector } from "../src/results/entryList.js";
import { compareRules, type RuleEntry, RuleTally, ruleEntries } from "../src/results/rules.js";
import { expectList, getFromWorkspace, readOnly } from "./common.js";
import { countLimit, profile, region, workspaceId, wrongType } from "./params.js";
import { truncation } from "./results.js";
import { defineTool } from "./types.js";

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
    "List alerting and recording rules: expression (query), for, labels, annotations, health and lastError (untrusted data), last evaluation, and for alerting rules their state and number of alerts. " +
    "Use it to see an alert's threshold and why it fires (or cannot: health err). name (e.g. HighErrorRate), group and type (alert or record) narrow it.",
  inputSchema: z.object({
    workspace_id: workspaceId,
    type: z
      .enum(["alert", "record"], { error: "type must be alert or record" })
      .nullable()
      .optional()
      .describe("Only alerting (alert) or recording (record) rules. Default: both."),
    name: names("name").describe("Rule name(s), exactly, e.g. HighErrorRate or job:up:sum."),
    group: names("group").describe("Rule group name(s), exactly."),
    limit: countLimit("rules, by group then name,"),
    region,
    profile,
  }),
  outputSchema: z.object({
    truncated: truncation,
    rules: z
      .array(z.looseObject({ group: z.string(), name: z.string(), type: z.string(), query: z.string() }))
      .describe("Rules sorted by group, then name"),
  }),
  annotations: readOnly("List alerting and recording rules"),
  async run(args, call) {
    const filter = {
      type: args.type ?? undefined,
      names: args.name ?? undefined,
      groups: args.group ?? undefined,
    };
    const limit = args.limit ?? undefined;
    const list = await getFromWorkspace(
      args,
      call,
      // Prometheus filters by type itself (since 2.21); names and groups are matched here, which every
      // server's answer allows (rule_name[] and rule_group[] arrived in 2.46).
      { path: "/rules", params: { type: filter.type } },
      () => {
        const tally = new RuleTally();
        return new ListCollector<RuleEntry>(
          {
            key: "rules",
            noun: "rules",
            format: { streamedKey: "groups" },
            entriesOf: (group) => ruleEntries(group, filter),
            compare: compareRules,
            orderWords: "by group, then name",
            tally: (entry) => tally.add(entry),
            nextStep: () => `There are ${tally.words(ERRORS_NAMED)}. Narrow with name, group or type.`,
            emptyHint:
              filter.names !== undefined || filter.groups !== undefined || filter.type !== undefined
                ? "No rule matches: name and group are exact (case-sensitive); ListRules without them lists every rule."
                : "This Prometheus has no rules loaded (with Amazon Managed Prometheus: no rule groups namespace in the workspace).",
          },
          { budget: call.budget, limit },
        );
      },
    );
    return expectList(list, "rule list");
  },
});
