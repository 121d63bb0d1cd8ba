import { describe, expect, it } from "vitest";
import { metricReadsOf } from "../../src/promql/selectors.js";
import { loadPromql } from "../../src/promql/syntax.js";
import { RuleDependencies, seriesQuery } from "../../src/results/ruleDependencies.js";
import { explainRuleError } from "../../src/results/ruleErrors.js";
import { ruleFindings, severityRank } from "../../src/results/ruleFindings.js";
import { type RuleEntry, ruleEntries } from "../../src/results/rules.js";

/**
 * Error texts as Prometheus 2.x writes them (storage/interface.go's errors, promql/engine.go's
 * ErrQueryTimeout/ErrTooManySamples and join errors, rules/recording.go and rules/group.go), one per kind,
 * with the words each explanation must lead with. test/integration/ruleDependencies.test.ts checks the
 * PromQL ones against what a running Prometheus answers.
 */
const KNOWN: Array<[string, RegExp]> = [
  ["out of bounds", /^Storage refused the results: their timestamp is older/],
  ["out of order sample", /^Storage refused the results: a newer sample/],
  ["duplicate sample for timestamp", /^Storage refused the results: another value/],
  ["too old sample", /^Storage refused the results: .*out-of-order window/],
  [
    'found duplicate series for the match group {job="api"} on the right hand-side of the operation: [{__name__="a", job="api"}, {__name__="a", instance="b", job="api"}];many-to-many matching not allowed: matching labels must be unique on one side',
    /^A join .* several series on both sides/,
  ],
  [
    "multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)",
    /^A join matched several series on one side/,
  ],
  ["vector cannot contain metrics with the same labelset", /^Two results had the same labels/],
  [
    "vector contains metrics with the same labelset after applying rule labels",
    /^The labels the rule sets made two results identical/,
  ],
  ["query timed out in expression evaluation", /^The evaluation ran past the query timeout/],
  ["context deadline exceeded", /^The evaluation ran past the query timeout/],
  [
    "query processing would load too many samples into memory in query execution",
    /^The evaluation would load more samples than the query limit/,
  ],
  ["exceeded limit of 10 with 12 series", /^The rule gave more results than its group's limit/],
];

describe("explainRuleError", () => {
  it.each(KNOWN)("explains %s", (error, means) => {
    const recording = explainRuleError(error, "recording");
    const alerting = explainRuleError(error, "alerting");
    expect(recording).toMatch(means);
    expect(alerting).toMatch(means);
    // One line each, and what it implies differs by type.
    expect(recording).not.toContain("\n");
    expect(recording).not.toBe(alerting);
  });

  it("says what a failure implies: nothing recorded, or an alert that cannot fire", () => {
    expect(
      explainRuleError(
        "many-to-many matching not allowed: matching labels must be unique on one side",
        "recording",
      ),
    ).toMatch(/Nothing is recorded, so alerts and dashboards that read this rule see no new data\.$/);
    expect(explainRuleError("vector cannot contain metrics with the same labelset", "alerting")).toMatch(
      /The rule is not evaluated, so it cannot fire\.$/,
    );
    // Storage refusing an alerting rule's samples loses its ALERTS series, not the alert.
    expect(explainRuleError("out of order sample", "recording")).toMatch(/results are not stored/);
    expect(explainRuleError("out of order sample", "alerting")).toMatch(
      /ALERTS series is not stored.*still evaluated and sent/,
    );
  });

  it("gives no explanation for text it does not know, nor for a storage error inside a longer one", () => {
    for (const error of [
      "",
      "some error of a newer Prometheus",
      "timestamp out of bounds for @ modifier: 1e+20",
      "out of bounds: index 3",
      "unexpected end of input",
    ]) {
      expect(explainRuleError(error, "recording"), error).toBeUndefined();
    }
    // A wrapping prefix keeps a storage error known.
    expect(explainRuleError("write to WAL: out of bounds", "recording")).toMatch(/^Storage refused/);
  });
});

describe("metricReadsOf", () => {
  it("reads metric names by parsing, required unless under absent(), in an `or` or right of `unless`", async () => {
    const promql = await loadPromql();
    expect(metricReadsOf(promql, 'job:err:ratio{job="api"} > 0.05 and on(job) job:up:sum > 0')).toEqual([
      { metric: "job:err:ratio", required: true },
      { metric: "job:up:sum", required: true },
    ]);
    expect(metricReadsOf(promql, "absent(a) or b unless c")).toEqual([
      { metric: "a", required: false },
      { metric: "b", required: false },
      { metric: "c", required: false },
    ]);
    expect(metricReadsOf(promql, 'rate({__name__="x"}[5m]) unless absent_over_time(y[5m]) and x')).toEqual([
      { metric: "x", required: true },
      { metric: "y", required: false },
    ]);
    // A name in a string or a comment is no read: only selectors count.
    expect(metricReadsOf(promql, 'label_replace(up, "a", "job:up:sum", "b", ".*") # job:err:ratio')).toEqual([
      { metric: "up", required: true },
    ]);
    expect(metricReadsOf(promql, "sum(")).toBeUndefined();
  });
});

/** /api/v1/rules groups as Prometheus answers them, the fields ruleEntries reads. */
function group(name: string, rules: Array<Record<string, unknown>>): unknown {
  return { name, file: "rules.yml", rules };
}
const recording = (name: string, health: string, lastError = "") => ({
  type: "recording",
  name,
  query: "sum(x)",
  health,
  lastError,
});
const alerting = (name: string, query: string, severity?: string) => ({
  type: "alerting",
  name,
  query,
  health: "ok",
  state: "inactive",
  alerts: [],
  ...(severity ? { labels: { severity } } : {}),
});

async function presented(groups: unknown[], series: ReadonlySet<string> | undefined): Promise<RuleEntry[]> {
  const dependencies = new RuleDependencies(await loadPromql());
  const entries = groups.flatMap((g) => ruleEntries(g, {}));
  for (const entry of entries) dependencies.see(entry);
  for (const entry of entries) dependencies.listed(entry);
  return entries.map((entry) => dependencies.present(entry, series));
}

describe("RuleDependencies and ruleFindings", () => {
  const ERROR = "vector cannot contain metrics with the same labelset";
  const GROUPS = [
    group("alerts", [
      alerting("ErrorsHigh", "job:err:ratio > 0.05", "page"),
      alerting("Quiet", "absent(job:err:ratio)", "info"),
      alerting("NoData", "job:none:sum > 0", "warning"),
      alerting("Fine", "job:up:sum == 0", "critical"),
      alerting("Plain", "up == 0"),
    ]),
    // The recording rules come after the alerts that read them, in another group.
    group("recording", [
      recording("job:err:ratio", "err", ERROR),
      recording("job:up:sum", "ok"),
      recording("job:none:sum", "ok"),
      recording("job:other:ratio", "err", ERROR),
    ]),
  ];

  it("gives each alerting rule the recording rules it reads, and can_fire: false with why when one it needs fails or has no series", async () => {
    const rules = await presented(GROUPS, new Set(["job:up:sum"]));
    const byName = new Map(rules.map((rule) => [rule.name, rule]));
    expect(byName.get("ErrorsHigh")).toMatchObject({
      depends_on: [{ name: "job:err:ratio", health: "err", has_series: false }],
      can_fire: false,
      why: `reads job:err:ratio, whose evaluation fails: ${ERROR}`,
    });
    // absent() fires precisely when the series is missing: it can fire.
    expect(byName.get("Quiet")?.depends_on).toEqual([
      { name: "job:err:ratio", health: "err", has_series: false },
    ]);
    expect(byName.get("Quiet")).not.toHaveProperty("can_fire");
    expect(byName.get("NoData")).toMatchObject({
      depends_on: [{ name: "job:none:sum", health: "ok", has_series: false }],
      can_fire: false,
      why: "reads job:none:sum, which has no series now",
    });
    expect(byName.get("Fine")?.depends_on).toEqual([{ name: "job:up:sum", health: "ok", has_series: true }]);
    expect(byName.get("Fine")).not.toHaveProperty("can_fire");
    expect(byName.get("Fine")).not.toHaveProperty("why");
    // Reading no recording rule: nothing added.
    expect(byName.get("Plain")).not.toHaveProperty("depends_on");
    expect(byName.get("job:up:sum")).not.toHaveProperty("depends_on");
  });

  it("without the series (their query failed), has_series is left out and only failing rules make an alert unable to fire", async () => {
    const rules = await presented(GROUPS, undefined);
    const byName = new Map(rules.map((rule) => [rule.name, rule]));
    expect(byName.get("NoData")).toEqual(
      expect.objectContaining({ depends_on: [{ name: "job:none:sum", health: "ok" }] }),
    );
    expect(byName.get("NoData")).not.toHaveProperty("can_fire");
    expect(byName.get("ErrorsHigh")).toMatchObject({ can_fire: false });
  });

  it("ruleFindings: failing rules grouped by error with what it means and the alerts it blocks; unfireable alerts most severe first", async () => {
    const rules = await presented(GROUPS, new Set(["job:up:sum"]));
    const findings = ruleFindings(rules);
    expect(findings.failing).toEqual([
      {
        error: ERROR,
        means: explainRuleError(ERROR, "recording"),
        rules: ["job:err:ratio", "job:other:ratio"],
        blocks: ["ErrorsHigh"],
      },
    ]);
    expect(findings.cannot_fire).toEqual([
      { name: "ErrorsHigh", severity: "page", why: `reads job:err:ratio, whose evaluation fails: ${ERROR}` },
      { name: "NoData", severity: "warning", why: "reads job:none:sum, which has no series now" },
    ]);
    expect(ruleFindings([])).toEqual({ failing: [], cannot_fire: [] });
  });

  it("ruleFindings orders errors by the most severe alert they touch, then by how many rules fail", async () => {
    const rules = await presented(
      [
        group("g", [
          alerting("A", "a:rec > 0", "info"),
          alerting("B", "b:rec > 0", "critical"),
          recording("a:rec", "err", "out of bounds"),
          recording("a:rec2", "err", "out of bounds"),
          recording("b:rec", "err", "query timed out in expression evaluation"),
        ]),
      ],
      new Set(),
    );
    expect(ruleFindings(rules).failing.map((f) => [f.error, f.rules, f.blocks])).toEqual([
      ["query timed out in expression evaluation", ["b:rec"], ["B"]],
      ["out of bounds", ["a:rec", "a:rec2"], ["A"]],
    ]);
    expect(severityRank("Critical")).toBeLessThan(severityRank("warning"));
    expect(severityRank("sev-unknown")).toBeLessThan(severityRank("info"));
    expect(severityRank("sev-unknown")).toBeGreaterThan(severityRank("warning"));
    expect(severityRank(undefined)).toBeGreaterThan(severityRank("none"));
  });

  it("seriesQuery asks for every name once, regex-escaped, in one query", () => {
    expect(seriesQuery(["job:up:sum", "a.b", "job:err:ratio"])).toBe(
      'group by (__name__) ({__name__=~"a\\\\.b|job:err:ratio|job:up:sum"})',
    );
  });
});
