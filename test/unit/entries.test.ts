import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import {
  type AlertEntry,
  AlertTally,
  alertEntry,
  stateFilter as alertStateFilter,
  alertSummary,
  compareAlerts,
  compareInstants,
} from "../../src/results/alerts.js";
import {
  compareCodePoints,
  compareLabelSets,
  LabelCardinality,
  labelSet,
  MAX_VALUES_PER_LABEL,
} from "../../src/results/labelSets.js";
import { metadataEntries } from "../../src/results/metadata.js";
import { explainRuleError } from "../../src/results/ruleErrors.js";
import { compareRules, type RuleEntry, ruleEntries, ruleSummary } from "../../src/results/rules.js";
import {
  compareSilences,
  type SilenceEntry,
  silenceEntry,
  stateFilter as silenceStateFilter,
} from "../../src/results/silences.js";
import { hasLoneSurrogate } from "../../src/util/json.js";

/** Every order of `items` sorts to the same list: the comparison is a deterministic total order on them. */
function expectSameOrderFromAnyStart<T>(items: readonly T[], compare: (a: T, b: T) => number): void {
  const sorted = JSON.stringify(items.slice().sort(compare));
  fc.assert(
    fc.property(fc.shuffledSubarray([...items], { minLength: items.length }), (shuffled) => {
      expect(JSON.stringify(shuffled.sort(compare))).toBe(sorted);
    }),
    { numRuns: 100 },
  );
}

// ---------------------------------------------------------------------------------------------------------
// Alerts: `data.alerts` of Prometheus 2.42's /api/v1/alerts (kube-prometheus rules).

const ALERTS_ANSWER = JSON.parse(String.raw`{
  "status": "success",
  "data": {
    "alerts": [
      {
        "labels": { "alertname": "Watchdog", "prometheus": "monitoring/k8s", "severity": "none" },
        "annotations": {
          "description": "This is an alert meant to ensure that the entire alerting pipeline is functional.",
          "runbook_url": "https://runbooks.prometheus-operator.dev/runbooks/general/watchdog",
          "summary": "An alert that should always be firing to certify that Alertmanager is working properly."
        },
        "state": "firing",
        "activeAt": "2023-02-27T08:00:43.1Z",
        "value": "1e+00"
      },
      {
        "labels": {
          "alertname": "KubePodCrashLooping", "container": "api", "namespace": "shop",
          "pod": "api-7c9d8b5f6-x2k4p", "severity": "warning"
        },
        "annotations": {
          "description": "Pod shop/api-7c9d8b5f6-x2k4p (api) is in waiting state (reason: \"CrashLoopBackOff\").",
          "summary": "Pod is crash looping."
        },
        "state": "firing",
        "activeAt": "2023-03-01T09:47:13.52143122Z",
        "value": "1e+00"
      },
      {
        "labels": { "alertname": "TargetDown", "job": "kubelet", "namespace": "kube-system", "severity": "warning" },
        "annotations": {},
        "state": "pending",
        "activeAt": "2023-03-01T10:01:43.52143122Z",
        "value": "3.3333333333333335e+01"
      },
      {
        "labels": {
          "alertname": "KubePodCrashLooping", "container": "worker", "namespace": "shop",
          "pod": "worker-5d4f9b8c7-q8w2e", "severity": "warning"
        },
        "annotations": { "summary": "Pod is crash looping." },
        "state": "firing",
        "activeAt": "2023-03-01T09:47:13.52143122Z",
        "value": "2e+00",
        "keepFiringSince": "2023-03-01T10:00:13.52143122Z"
      }
    ]
  }
}`);

const rawAlerts: unknown[] = ALERTS_ANSWER.data.alerts;

describe("alertEntry", () => {
  it("keeps Prometheus's fields and names", () => {
    expect(alertEntry(rawAlerts[3])).toEqual({
      labels: {
        alertname: "KubePodCrashLooping",
        container: "worker",
        namespace: "shop",
        pod: "worker-5d4f9b8c7-q8w2e",
        severity: "warning",
      },
      annotations: { summary: "Pod is crash looping." },
      state: "firing",
      activeAt: "2023-03-01T09:47:13.52143122Z",
      value: "2e+00",
      keepFiringSince: "2023-03-01T10:00:13.52143122Z",
    });
  });

  it("leaves out empty annotations and absent fields", () => {
    const entry = alertEntry(rawAlerts[2]) as AlertEntry;
    expect(Object.keys(entry)).toEqual(["labels", "state", "activeAt", "value"]);
    expect(alertEntry({ labels: { alertname: "A" }, state: "pending" })).toEqual({
      labels: { alertname: "A" },
      state: "pending",
    });
  });

  it("leaves out Go's zero time", () => {
    const entry = alertEntry({
      labels: { alertname: "A" },
      annotations: { summary: "" },
      state: "pending",
      activeAt: "0001-01-01T00:00:00Z",
      keepFiringSince: "0001-01-01T00:00:00Z",
      value: "",
    });
    expect(entry).toEqual({ labels: { alertname: "A" }, annotations: { summary: "" }, state: "pending" });
  });

  it("is undefined for what is not an alert", () => {
    for (const raw of [
      null,
      "alert",
      [],
      { state: "firing" },
      { labels: [], state: "firing" },
      { labels: { alertname: 1 }, state: "firing" },
      { labels: { alertname: "A" } },
      { labels: { alertname: "A" }, state: 1 },
    ]) {
      expect(alertEntry(raw), JSON.stringify(raw)).toBeUndefined();
    }
  });

  it("a label named __proto__ stays a label; labels come out sorted by name", () => {
    const entry = alertEntry(
      JSON.parse('{"labels": {"z": "1", "__proto__": "p", "a": "2"}, "state": "firing"}'),
    );
    expect(Object.getPrototypeOf(entry?.labels)).toBe(Object.prototype);
    expect(Object.entries(entry?.labels ?? {})).toEqual([
      ["__proto__", "p"],
      ["a", "2"],
      ["z", "1"],
    ]);
  });
});

describe("compareAlerts", () => {
  it("firing before pending, newest first, then alertname, then the label set", () => {
    const sorted = rawAlerts
      .map(alertEntry)
      .filter((e): e is AlertEntry => e !== undefined)
      .sort(compareAlerts);
    expect(sorted.map((e) => [e.state, e.labels.alertname, e.labels.pod ?? ""])).toEqual([
      ["firing", "KubePodCrashLooping", "api-7c9d8b5f6-x2k4p"],
      ["firing", "KubePodCrashLooping", "worker-5d4f9b8c7-q8w2e"],
      ["firing", "Watchdog", ""],
      ["pending", "TargetDown", ""],
    ]);
  });

  it("other states after pending; a missing activeAt last in its state", () => {
    const entries: AlertEntry[] = [
      { labels: { alertname: "C" }, state: "inactive", activeAt: "2023-03-01T10:00:00Z" },
      { labels: { alertname: "B" }, state: "pending" },
      { labels: { alertname: "A" }, state: "pending", activeAt: "2020-01-01T00:00:00Z" },
      { labels: { alertname: "D" }, state: "firing" },
    ];
    expect(entries.sort(compareAlerts).map((e) => e.labels.alertname)).toEqual(["D", "A", "B", "C"]);
  });

  it("times to the nanosecond and in any zone", () => {
    const at = (activeAt: string, alertname: string): AlertEntry => ({
      labels: { alertname },
      state: "firing",
      activeAt,
    });
    const entries = [
      // Named against their order, so that a tie in time would show.
      at("2023-03-01T10:00:00.0000001Z", "a: older by 100ns"),
      at("2023-03-01T10:00:00.0000002Z", "z: newest"),
      at("2023-03-01T11:00:00+02:00", "09:00 UTC"),
      at("2023-03-01T09:30:00.5Z", "09:30:00.5 UTC"),
    ];
    expect(entries.sort(compareAlerts).map((e) => e.labels.alertname)).toEqual([
      "z: newest",
      "a: older by 100ns",
      "09:30:00.5 UTC",
      "09:00 UTC",
    ]);
  });

  it("alertnames in code-point order, not UTF-16's", () => {
    // U+FFFD is below U+1F600 as a code point, above its surrogates as UTF-16 units.
    const a: AlertEntry = { labels: { alertname: "\u{1F600}" }, state: "firing" };
    const b: AlertEntry = { labels: { alertname: "\uFFFD" }, state: "firing" };
    expect(compareAlerts(b, a)).toBeLessThan(0);
    expect(compareAlerts(a, b)).toBeGreaterThan(0);
  });

  it("is a total order: any shuffle sorts the same, even alerts that differ only in value or annotations", () => {
    const base = {
      labels: { alertname: "Same", pod: "p" },
      state: "firing",
      activeAt: "2023-03-01T10:00:00Z",
    };
    expectSameOrderFromAnyStart<AlertEntry>(
      [
        ...(rawAlerts.map(alertEntry) as AlertEntry[]),
        { ...base, value: "1e+00" },
        { ...base, value: "2e+00" },
        { ...base, value: "2e+00", annotations: { summary: "x" } },
        { ...base, value: "2e+00", annotations: { summary: "y" } },
        { ...base, state: "unknown" },
        { ...base, state: "odd" },
      ],
      compareAlerts,
    );
  });
});

describe("alert tally and filter", () => {
  const entries = rawAlerts.map(alertEntry) as AlertEntry[];

  it("counts by state and alertname, most first", () => {
    const tally = alertSummary(entries);
    expect(tally.total).toBe(4);
    expect(tally.byState()).toEqual([
      { state: "firing", alerts: 3 },
      { state: "pending", alerts: 1 },
    ]);
    expect(tally.byAlertname()).toEqual([
      { alertname: "KubePodCrashLooping", alerts: 2 },
      { alertname: "TargetDown", alerts: 1 },
      { alertname: "Watchdog", alerts: 1 },
    ]);
  });

  it("words name the top alertnames and how many more there are", () => {
    const tally = alertSummary(entries);
    expect(tally.words(2)).toBe(
      "firing 3, pending 1; by alertname: KubePodCrashLooping (2), TargetDown (1) and 1 more",
    );
    expect(tally.words(5)).toBe(
      "firing 3, pending 1; by alertname: KubePodCrashLooping (2), TargetDown (1), Watchdog (1)",
    );
    expect(tally.words(0)).toBe("firing 3, pending 1");
    expect(new AlertTally().words(3)).toBe("");
  });

  it("words write large counts with separators and name alerts without alertname", () => {
    const tally = new AlertTally();
    for (let i = 0; i < 1200; i++)
      tally.add({ labels: { alertname: "KubePodCrashLooping" }, state: "firing" });
    tally.add({ labels: {}, state: "pending" });
    expect(tally.words(3)).toBe(
      "firing 1,200, pending 1; by alertname: KubePodCrashLooping (1,200), (no alertname) (1)",
    );
  });

  it("stateFilter keeps the state asked, or all", () => {
    expect(entries.filter(alertStateFilter("pending")).map((e) => e.labels.alertname)).toEqual([
      "TargetDown",
    ]);
    expect(entries.filter(alertStateFilter("firing"))).toHaveLength(3);
    expect(entries.filter(alertStateFilter(undefined))).toHaveLength(4);
  });
});

describe("compareInstants", () => {
  it("oldest or newest first, missing and unparseable last either way", () => {
    const times = ["2023-03-01T10:00:00Z", undefined, "not a time", "2023-03-01T09:00:00.999999999Z"];
    // Array.prototype.sort puts undefined last by itself: sort the times' positions instead.
    const order = (first: "oldest" | "newest") =>
      [0, 1, 2, 3].sort((a, b) => compareInstants(times[a], times[b], first)).map((i) => times[i]);
    expect(order("oldest")).toEqual([
      "2023-03-01T09:00:00.999999999Z",
      "2023-03-01T10:00:00Z",
      undefined,
      "not a time",
    ]);
    expect(order("newest")).toEqual([
      "2023-03-01T10:00:00Z",
      "2023-03-01T09:00:00.999999999Z",
      undefined,
      "not a time",
    ]);
    expect(compareInstants(undefined, "not a time", "newest")).toBe(0);
    expect(
      compareInstants("2023-03-01T10:00:00.000000001Z", "2023-03-01T10:00:00.000000002Z", "oldest"),
    ).toBe(-1);
    expect(compareInstants("2023-03-01T10:00:00.5Z", "2023-03-01T10:00:00.49999Z", "newest")).toBe(-1);
    expect(compareInstants("2023-03-01T10:00:00Z", "2023-03-01T10:00:00.000Z", "oldest")).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Rules: `data.groups` of Prometheus 2.42's /api/v1/rules.

const FILE = "/etc/prometheus/rules/prometheus-k8s-rulefiles-0/monitoring-kubernetes-monitoring-rules.yaml";

const RULES_ANSWER = JSON.parse(String.raw`{
  "status": "success",
  "data": {
    "groups": [
      {
        "name": "kubernetes-apps",
        "file": "${FILE}",
        "rules": [
          {
            "state": "firing",
            "name": "KubePodCrashLooping",
            "query": "max_over_time(kube_pod_container_status_waiting_reason{job=\"kube-state-metrics\",reason=\"CrashLoopBackOff\"}[5m]) >= 1",
            "duration": 900,
            "keepFiringFor": 0,
            "labels": { "severity": "warning" },
            "annotations": {
              "runbook_url": "https://runbooks.prometheus-operator.dev/runbooks/kubernetes/kubepodcrashlooping",
              "summary": "Pod is crash looping."
            },
            "alerts": [
              {
                "labels": { "alertname": "KubePodCrashLooping", "namespace": "shop", "pod": "api-7c9d8b5f6-x2k4p", "severity": "warning" },
                "annotations": { "summary": "Pod is crash looping." },
                "state": "firing",
                "activeAt": "2023-03-01T09:47:13.52143122Z",
                "value": "1e+00"
              },
              {
                "labels": { "alertname": "KubePodCrashLooping", "namespace": "shop", "pod": "worker-5d4f9b8c7-q8w2e", "severity": "warning" },
                "annotations": { "summary": "Pod is crash looping." },
                "state": "pending",
                "activeAt": "2023-03-01T10:01:13.52143122Z",
                "value": "1e+00"
              }
            ],
            "health": "ok",
            "evaluationTime": 0.000918241,
            "lastEvaluation": "2023-03-01T10:02:13.52143122Z",
            "type": "alerting"
          },
          {
            "state": "inactive",
            "name": "KubeDeploymentReplicasMismatch",
            "query": "kube_deployment_spec_replicas{job=\"kube-state-metrics\"} > kube_deployment_status_replicas_available{job=\"kube-state-metrics\"}",
            "duration": 90,
            "keepFiringFor": 300,
            "labels": { "severity": "warning" },
            "annotations": {},
            "alerts": [],
            "health": "ok",
            "evaluationTime": 0.000492,
            "lastEvaluation": "2023-03-01T10:02:13.521Z",
            "type": "alerting"
          }
        ],
        "interval": 30,
        "limit": 0,
        "evaluationTime": 0.0015,
        "lastEvaluation": "2023-03-01T10:02:13.52143122Z"
      },
      {
        "name": "node.rules",
        "file": "${FILE}",
        "rules": [
          {
            "name": "instance:node_cpu_utilisation:rate5m",
            "query": "1 - avg without (cpu) (sum without (mode) (rate(node_cpu_seconds_total{job=\"node-exporter\",mode=~\"idle|iowait|steal\"}[5m])))",
            "labels": {},
            "health": "ok",
            "evaluationTime": 0.000412,
            "lastEvaluation": "2023-03-01T10:02:01.1Z",
            "type": "recording"
          },
          {
            "name": "namespace:container_memory:sum",
            "query": "sum by (namespace) (container_memory_working_set_bytes{image!=\"\"})",
            "labels": { "team": "platform" },
            "health": "err",
            "lastError": "vector contains metrics with the same labelset after applying rule labels",
            "evaluationTime": 0.0031,
            "lastEvaluation": "2023-03-01T10:02:01.1Z",
            "type": "recording"
          },
          {
            "name": "instance:node_load1:ratio",
            "query": "node_load1 / instance:node_num_cpu:sum",
            "health": "unknown",
            "evaluationTime": 0,
            "lastEvaluation": "0001-01-01T00:00:00Z",
            "type": "recording"
          }
        ],
        "interval": 60,
        "limit": 0,
        "evaluationTime": 0.004,
        "lastEvaluation": "2023-03-01T10:02:01.1Z"
      }
    ]
  }
}`);

const groups: unknown[] = RULES_ANSWER.data.groups;
const allRules = (): RuleEntry[] => groups.flatMap((g) => ruleEntries(g, {}));

describe("ruleEntries", () => {
  it("an alerting rule: for as a duration, its state and number of alerts", () => {
    expect(ruleEntries(groups[0], {})).toEqual([
      {
        group: "kubernetes-apps",
        name: "KubePodCrashLooping",
        type: "alerting",
        query:
          'max_over_time(kube_pod_container_status_waiting_reason{job="kube-state-metrics",reason="CrashLoopBackOff"}[5m]) >= 1',
        for: "15m",
        labels: { severity: "warning" },
        annotations: {
          runbook_url: "https://runbooks.prometheus-operator.dev/runbooks/kubernetes/kubepodcrashlooping",
          summary: "Pod is crash looping.",
        },
        health: "ok",
        lastEvaluation: "2023-03-01T10:02:13.52143122Z",
        state: "firing",
        alerts: 2,
      },
      {
        group: "kubernetes-apps",
        name: "KubeDeploymentReplicasMismatch",
        type: "alerting",
        query:
          'kube_deployment_spec_replicas{job="kube-state-metrics"} > kube_deployment_status_replicas_available{job="kube-state-metrics"}',
        for: "1m30s",
        keepFiringFor: "5m",
        labels: { severity: "warning" },
        health: "ok",
        lastEvaluation: "2023-03-01T10:02:13.521Z",
        state: "inactive",
        alerts: 0,
      },
    ]);
  });

  it("recording rules: no state, alerts or for; file and lastError only on the erring one", () => {
    expect(ruleEntries(groups[1], {})).toEqual([
      {
        group: "node.rules",
        name: "instance:node_cpu_utilisation:rate5m",
        type: "recording",
        query:
          '1 - avg without (cpu) (sum without (mode) (rate(node_cpu_seconds_total{job="node-exporter",mode=~"idle|iowait|steal"}[5m])))',
        health: "ok",
        lastEvaluation: "2023-03-01T10:02:01.1Z",
      },
      {
        group: "node.rules",
        file: FILE,
        name: "namespace:container_memory:sum",
        type: "recording",
        query: 'sum by (namespace) (container_memory_working_set_bytes{image!=""})',
        labels: { team: "platform" },
        health: "err",
        lastError: "vector contains metrics with the same labelset after applying rule labels",
        // Prometheus's text kept, what it means added (src/results/ruleErrors.ts).
        error_means: explainRuleError(
          "vector contains metrics with the same labelset after applying rule labels",
          "recording",
        ),
        lastEvaluation: "2023-03-01T10:02:01.1Z",
      },
      {
        group: "node.rules",
        name: "instance:node_load1:ratio",
        type: "recording",
        query: "node_load1 / instance:node_num_cpu:sum",
        health: "unknown",
      },
    ]);
  });

  it("filters by type, names and groups, each by exact match", () => {
    const names = (filter: Parameters<typeof ruleEntries>[1]) =>
      groups.flatMap((g) => ruleEntries(g, filter)).map((r) => r.name);
    expect(names({ type: "alert" })).toEqual(["KubePodCrashLooping", "KubeDeploymentReplicasMismatch"]);
    expect(names({ type: "record" })).toHaveLength(3);
    expect(
      names({ groups: ["node.rules"], names: ["instance:node_load1:ratio", "KubePodCrashLooping"] }),
    ).toEqual(["instance:node_load1:ratio"]);
    expect(names({ names: ["KubePodCrash"] })).toEqual([]);
    expect(names({ groups: ["node"] })).toEqual([]);
    expect(names({ type: "alert", groups: ["node.rules"] })).toEqual([]);
    expect(names({ names: [], groups: undefined })).toEqual([]);
  });

  it("skips what is not a rule, and gives none for what is not a group", () => {
    const group = {
      name: "g",
      rules: [
        { name: "a", query: "up", type: "alerting", health: "ok" },
        { name: "b", query: "up", type: "weird" },
        { name: 1, query: "up", type: "recording" },
        { name: "c", type: "recording" },
        null,
      ],
    };
    expect(ruleEntries(group, {})).toEqual([
      { group: "g", name: "a", type: "alerting", query: "up", health: "ok" },
    ]);
    for (const raw of [null, [], { name: "g" }, { rules: [] }, { name: "g", rules: {} }]) {
      expect(ruleEntries(raw, {})).toEqual([]);
    }
  });
});

describe("compareRules and the rule tally", () => {
  it("by group, name, type, then query", () => {
    const extra: RuleEntry[] = [
      { group: "kubernetes-apps", name: "KubePodCrashLooping", type: "recording", query: "a", health: "ok" },
      { group: "kubernetes-apps", name: "KubePodCrashLooping", type: "alerting", query: "a", health: "ok" },
      { group: "Zeta", name: "z", type: "recording", query: "z", health: "ok" },
    ];
    const sorted = [...allRules(), ...extra].sort(compareRules);
    expect(sorted.map((r) => `${r.group}/${r.name}/${r.type}/${r.query.slice(0, 3)}`)).toEqual([
      "Zeta/z/recording/z",
      "kubernetes-apps/KubeDeploymentReplicasMismatch/alerting/kub",
      "kubernetes-apps/KubePodCrashLooping/alerting/a",
      "kubernetes-apps/KubePodCrashLooping/alerting/max",
      "kubernetes-apps/KubePodCrashLooping/recording/a",
      "node.rules/instance:node_cpu_utilisation:rate5m/recording/1 -",
      "node.rules/instance:node_load1:ratio/recording/nod",
      "node.rules/namespace:container_memory:sum/recording/sum",
    ]);
  });

  it("is a total order, even for the same rule in two groups of the same name", () => {
    const rule: RuleEntry = { group: "g", name: "r", type: "alerting", query: "up == 0", health: "ok" };
    expectSameOrderFromAnyStart<RuleEntry>(
      [
        ...allRules(),
        rule,
        { ...rule, labels: { severity: "page" } },
        { ...rule, for: "5m" },
        { ...rule, health: "err", file: "a.yaml", lastError: "x" },
        { ...rule, health: "err", file: "b.yaml", lastError: "x" },
      ],
      compareRules,
    );
  });

  it("tallies health, alerting states, groups and the rules with errors", () => {
    const tally = ruleSummary(allRules());
    expect(tally.total).toBe(5);
    expect(tally.groups).toBe(2);
    expect(Object.fromEntries(tally.health)).toEqual({ ok: 3, err: 1, unknown: 1 });
    expect(Object.fromEntries(tally.states)).toEqual({ firing: 1, inactive: 1 });
    expect(tally.erring).toEqual(["namespace:container_memory:sum"]);
    expect(tally.words(3)).toBe(
      "5 rules in 2 groups: ok 3, err 1, unknown 1; alerting rules: firing 1, inactive 1; " +
        "with errors: namespace:container_memory:sum",
    );
  });

  it("words name at most max rules with errors, each once", () => {
    const erring = (group: string, name: string): RuleEntry => ({
      group,
      name,
      type: "recording",
      query: "x",
      health: "err",
      lastError: "boom",
    });
    const tally = ruleSummary([erring("g1", "a"), erring("g2", "a"), erring("g1", "b"), erring("g1", "c")]);
    expect(tally.erring).toEqual(["a", "b", "c"]);
    expect(tally.words(2)).toBe("4 rules in 2 groups: err 4; with errors: a, b and others");
    expect(ruleSummary([erring("g", "only")]).words(5)).toBe("1 rule in 1 group: err 1; with errors: only");
    expect(ruleSummary([]).words(5)).toBe("");
  });
});

// ---------------------------------------------------------------------------------------------------------
// Silences: Alertmanager 0.25's GET /api/v2/silences.

const SILENCES_ANSWER = JSON.parse(`[
  {
    "id": "1b2ef3c4-75a0-4d0a-9d2e-0e5a3d7c2f11",
    "status": { "state": "expired" },
    "updatedAt": "2023-02-28T18:00:00.000Z",
    "comment": "Node maintenance",
    "createdBy": "bob",
    "endsAt": "2023-02-28T18:00:00.000Z",
    "matchers": [{ "isEqual": true, "isRegex": false, "name": "instance", "value": "node-3:9100" }],
    "startsAt": "2023-02-28T16:00:00.000Z"
  },
  {
    "id": "8f0b3a4e-3f5e-4c2b-9a57-0c1f3d1e6a42",
    "status": { "state": "active" },
    "updatedAt": "2023-03-01T09:00:00.102Z",
    "comment": "Rolling out shop v2",
    "createdBy": "alice",
    "endsAt": "2023-03-01T13:00:00.000Z",
    "matchers": [
      { "isEqual": true, "isRegex": false, "name": "alertname", "value": "KubePodCrashLooping" },
      { "isEqual": true, "isRegex": true, "name": "namespace", "value": "shop|cart" },
      { "isEqual": false, "isRegex": false, "name": "severity", "value": "critical" },
      { "isEqual": false, "isRegex": true, "name": "pod", "value": "db-.*" }
    ],
    "startsAt": "2023-03-01T09:00:00.102Z"
  },
  {
    "id": "c6d1e2f3-0a4b-4c5d-8e6f-7a8b9c0d1e2f",
    "status": { "state": "pending" },
    "updatedAt": "2023-03-01T09:30:00.000Z",
    "comment": "Weekend window",
    "createdBy": "carol",
    "endsAt": "2023-03-05T00:00:00.000Z",
    "matchers": [{ "isRegex": false, "name": "cluster", "value": "eu-1" }],
    "startsAt": "2023-03-04T00:00:00.000Z"
  },
  {
    "id": "02c0ffee-0000-4000-8000-000000000001",
    "status": { "state": "active" },
    "updatedAt": "2023-03-01T08:00:00.000Z",
    "comment": "Flaky probe",
    "createdBy": "dave",
    "endsAt": "2023-03-01T11:00:00.000Z",
    "matchers": [{ "isEqual": true, "isRegex": false, "name": "alertname", "value": "BlackboxProbeFailed" }],
    "startsAt": "2023-03-01T08:00:00.000Z"
  },
  {
    "id": "0e0e0e0e-0000-4000-8000-000000000002",
    "status": { "state": "expired" },
    "updatedAt": "2023-02-20T10:00:00.000Z",
    "comment": "Old",
    "createdBy": "erin",
    "endsAt": "2023-02-20T10:00:00.000Z",
    "matchers": [{ "isEqual": true, "isRegex": false, "name": "job", "value": "legacy" }],
    "startsAt": "2023-02-20T09:00:00.000Z"
  }
]`);

describe("silenceEntry", () => {
  it("writes the four kinds of matchers as PromQL", () => {
    expect(silenceEntry(SILENCES_ANSWER[1])).toEqual({
      id: "8f0b3a4e-3f5e-4c2b-9a57-0c1f3d1e6a42",
      state: "active",
      matchers: [
        'alertname="KubePodCrashLooping"',
        'namespace=~"shop|cart"',
        'severity!="critical"',
        'pod!~"db-.*"',
      ],
      startsAt: "2023-03-01T09:00:00.102Z",
      endsAt: "2023-03-01T13:00:00.000Z",
      createdBy: "alice",
      comment: "Rolling out shop v2",
      updatedAt: "2023-03-01T09:00:00.102Z",
    });
  });

  it("a matcher without isEqual (Alertmanager before 0.22) is equal", () => {
    expect(silenceEntry(SILENCES_ANSWER[2])?.matchers).toEqual(['cluster="eu-1"']);
  });

  it("escapes values and quotes names that are not bare label names", () => {
    const raw = {
      id: "x",
      status: { state: "active" },
      startsAt: "2023-03-01T09:00:00Z",
      endsAt: "2023-03-01T10:00:00Z",
      matchers: [
        { name: "summary", value: 'say "hi"\\now\n', isRegex: false, isEqual: true },
        { name: "service.name", value: "cart", isRegex: true },
      ],
    };
    expect(silenceEntry(raw)).toEqual({
      id: "x",
      state: "active",
      matchers: [String.raw`summary="say \"hi\"\\now\n"`, '"service.name"=~"cart"'],
      startsAt: "2023-03-01T09:00:00Z",
      endsAt: "2023-03-01T10:00:00Z",
      createdBy: "",
      comment: "",
    });
  });

  it("is undefined for what is not a silence, or has a matcher it cannot show", () => {
    const good = SILENCES_ANSWER[3];
    for (const raw of [
      null,
      [],
      { ...good, id: 7 },
      { ...good, status: "active" },
      { ...good, status: {} },
      { ...good, startsAt: undefined },
      { ...good, endsAt: null },
      { ...good, matchers: {} },
      { ...good, matchers: [{ name: "a" }] },
      { ...good, matchers: [{ name: "a", value: "b" }, "c"] },
    ]) {
      expect(silenceEntry(raw), JSON.stringify(raw)).toBeUndefined();
    }
    expect(silenceEntry(good)).toBeDefined();
  });
});

describe("compareSilences and stateFilter", () => {
  const entries = (SILENCES_ANSWER as unknown[]).map(silenceEntry) as SilenceEntry[];

  it("active (soonest end first), pending, expired (latest end first)", () => {
    expect(
      entries
        .slice()
        .sort(compareSilences)
        .map((s) => `${s.state} ${s.createdBy}`),
    ).toEqual(["active dave", "active alice", "pending carol", "expired bob", "expired erin"]);
  });

  it("pending by soonest start, other states last, then id", () => {
    const s = (
      id: string,
      state: string,
      startsAt: string,
      endsAt = "2023-04-01T00:00:00Z",
    ): SilenceEntry => ({
      id,
      state,
      matchers: [],
      startsAt,
      endsAt,
      createdBy: "",
      comment: "",
    });
    const list = [
      s("b", "weird", "2023-01-01T00:00:00Z"),
      s("a", "weird", "2023-01-02T00:00:00Z"),
      s("late", "pending", "2023-03-09T00:00:00Z", "2023-03-01T00:00:00Z"),
      s("soon", "pending", "2023-03-02T00:00:00Z", "2023-03-20T00:00:00Z"),
      s("z", "expired", "2023-01-01T00:00:00Z", "2023-02-01T00:00:00Z"),
      s("y", "expired", "2023-01-01T00:00:00Z", "2023-02-01T00:00:00Z"),
    ];
    expect(list.sort(compareSilences).map((e) => e.id)).toEqual(["soon", "late", "y", "z", "a", "b"]);
  });

  it("is a total order", () => {
    expectSameOrderFromAnyStart(entries, compareSilences);
  });

  it("stateFilter", () => {
    expect(entries.filter(silenceStateFilter("expired")).map((e) => e.createdBy)).toEqual(["bob", "erin"]);
    expect(entries.filter(silenceStateFilter("pending")).map((e) => e.createdBy)).toEqual(["carol"]);
    expect(entries.filter(silenceStateFilter(undefined))).toHaveLength(5);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Metadata: `data` of Prometheus 2.42's /api/v1/metadata.

describe("metadataEntries", () => {
  it("one entry per distinct description, sorted, unit only when set", () => {
    const data = {
      prometheus_tsdb_head_series: [
        { type: "gauge", help: "Total number of series in the head block.", unit: "" },
      ],
      go_goroutines: [
        { type: "gauge", help: "Number of goroutines that currently exist.", unit: "" },
        { type: "gauge", help: "Number of goroutines that currently exist.", unit: "" },
      ],
      http_request_duration_seconds: [
        { type: "histogram", help: "Request latency.", unit: "seconds" },
        { type: "histogram", help: "A histogram of request latencies.", unit: "" },
        { type: "summary", help: "Request latency.", unit: "" },
      ],
    };
    expect(metadataEntries(data)).toEqual([
      { metric: "go_goroutines", type: "gauge", help: "Number of goroutines that currently exist." },
      {
        metric: "http_request_duration_seconds",
        type: "histogram",
        help: "A histogram of request latencies.",
      },
      {
        metric: "http_request_duration_seconds",
        type: "histogram",
        help: "Request latency.",
        unit: "seconds",
      },
      { metric: "http_request_duration_seconds", type: "summary", help: "Request latency." },
      {
        metric: "prometheus_tsdb_head_series",
        type: "gauge",
        help: "Total number of series in the head block.",
      },
    ]);
  });

  it("two descriptions differing only by unit are two entries", () => {
    expect(
      metadataEntries({
        m: [
          { type: "gauge", help: "h", unit: "bytes" },
          { type: "gauge", help: "h", unit: "" },
        ],
      }),
    ).toEqual([
      { metric: "m", type: "gauge", help: "h" },
      { metric: "m", type: "gauge", help: "h", unit: "bytes" },
    ]);
  });

  it("undefined when data is not an object of arrays; elements that are not objects are skipped", () => {
    expect(metadataEntries([])).toBeUndefined();
    expect(metadataEntries(null)).toBeUndefined();
    expect(metadataEntries({ up: { type: "gauge" } })).toBeUndefined();
    expect(metadataEntries({})).toEqual([]);
    expect(metadataEntries({ up: ["x", { type: "gauge", help: 3 }] })).toEqual([
      { metric: "up", type: "gauge", help: "" },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Label sets: elements of /api/v1/series.

describe("labelSet and compareLabelSets", () => {
  it("an object of strings, names sorted; else undefined", () => {
    expect(Object.keys(labelSet({ job: "node", __name__: "up", instance: "a:9100" }) ?? {})).toEqual([
      "__name__",
      "instance",
      "job",
    ]);
    for (const raw of [null, "up", [], { __name__: 1 }, { a: null }]) expect(labelSet(raw)).toBeUndefined();
    expect(labelSet({})).toEqual({});
  });

  it("by __name__ (none first), then the other labels as sorted pairs", () => {
    const sets: Array<Record<string, string>> = [
      { __name__: "up", job: "node", instance: "b:9100" },
      { __name__: "up", instance: "a:9100", job: "node" },
      { __name__: "up", instance: "a:9100" },
      { __name__: "go_goroutines", job: "z" },
      { job: "x" },
      { __name__: "up", instance: "a:9100", job: "api" },
    ];
    expect(sets.sort(compareLabelSets)).toEqual([
      { job: "x" },
      { __name__: "go_goroutines", job: "z" },
      { __name__: "up", instance: "a:9100" },
      { __name__: "up", instance: "a:9100", job: "api" },
      { __name__: "up", instance: "a:9100", job: "node" },
      { __name__: "up", job: "node", instance: "b:9100" },
    ]);
  });

  test.prop([fc.string({ unit: "binary" }), fc.string({ unit: "binary" })])(
    "compareCodePoints agrees with the order of UTF-8 bytes",
    (a, b) => {
      const bytes = Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
      // A lone surrogate becomes U+FFFD in UTF-8: only well-formed strings have a byte order to agree with.
      fc.pre(!hasLoneSurrogate(a) && !hasLoneSurrogate(b));
      expect(Math.sign(compareCodePoints(a, b))).toBe(bytes);
    },
  );

  it("compareCodePoints puts U+FFFD before U+1F600, unlike <", () => {
    expect("\u{1F600}" < "\uFFFD").toBe(true);
    expect(compareCodePoints("\uFFFD", "\u{1F600}")).toBe(-1);
    expect(compareCodePoints("ab", "abc")).toBe(-1);
    expect(compareCodePoints("abc", "abc")).toBe(0);
  });
});

describe("LabelCardinality", () => {
  it("labels with the most values and names with the most series", () => {
    const tally = new LabelCardinality();
    for (let i = 0; i < 1204; i++) {
      tally.add({
        __name__: "http_requests_total",
        instance: `10.0.${i >> 8}.${i & 255}:8080`,
        code: `${200 + (i % 5)}`,
      });
    }
    for (let i = 0; i < 3; i++) tally.add({ __name__: "up", instance: `10.0.0.${i}:8080`, job: "api" });
    expect(tally.series).toBe(1207);
    expect(tally.labels()).toEqual([
      { name: "instance", values: 1204, atLeast: false },
      { name: "code", values: 5, atLeast: false },
      { name: "job", values: 1, atLeast: false },
    ]);
    expect(tally.words(2)).toBe(
      "labels with the most values: instance (1,204 values), code (5 values); " +
        "metric names with the most series: http_requests_total (1,204 series), up (3 series)",
    );
    expect(tally.words(5)).toContain("job (1 value)");
    expect(new LabelCardinality().words(3)).toBe("");
  });

  it("stops counting a label's values at the cap and says at least", () => {
    const tally = new LabelCardinality();
    for (let i = 0; i <= MAX_VALUES_PER_LABEL; i++) tally.add({ pod: `pod-${i}`, job: "k" });
    expect(tally.labels()[0]).toEqual({ name: "pod", values: MAX_VALUES_PER_LABEL, atLeast: true });
    expect(tally.words(1)).toBe("labels with the most values: pod (at least 100,000 values)");
    // A value already counted does not make the count a lower bound.
    const exact = new LabelCardinality();
    for (let i = 0; i < 3; i++) exact.add({ pod: "same" });
    expect(exact.labels()).toEqual([{ name: "pod", values: 1, atLeast: false }]);
  });
});
