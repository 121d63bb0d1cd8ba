import { fc, test } from "@fast-check/vitest";
import { beforeAll, describe, expect, it } from "vitest";
import { loadRegexEngine } from "../../src/promql/matchers.js";
import {
  type AmAlert,
  AmAlertIndex,
  type AmMatcher,
  type AmSilence,
  alertmanagerStatusOf,
  amAlertOf,
  amSilenceOf,
  matchingAmAlert,
  silenceMatches,
  silencesMatchingNoAlert,
} from "../../src/results/alertmanagerStatus.js";

/**
 * Prometheus's alerts joined to Alertmanager's: the alert Alertmanager holds has Prometheus's labels plus
 * the external labels, and the join finds it through those and never through a near miss (a label
 * missing, another value, another alertname); silences matched as Alertmanager matches them.
 */

type Labels = Record<string, string>;

/** Few names and values, so that near misses and collisions are common. */
const ALERT_LABEL_NAMES = ["instance", "job", "severity", "team"] as const;
const EXTERNAL_LABEL_NAMES = ["cluster", "replica", "region"] as const;
const value = fc.constantFrom("a", "b", "c", "");
const nonEmpty = fc.constantFrom("a", "b", "c");
const alertname = fc.constantFrom("HighErrorRate", "TargetDown");

const alertLabels = fc
  .record({
    alertname,
    own: fc.dictionary(fc.constantFrom(...ALERT_LABEL_NAMES), nonEmpty, { maxKeys: 4 }),
  })
  .map(({ alertname, own }): Labels => ({ alertname, ...own }));
const externalLabels = fc.dictionary(fc.constantFrom(...EXTERNAL_LABEL_NAMES), nonEmpty, { maxKeys: 3 });
const fingerprint = fc.stringMatching(/^[0-9a-f]{16}$/);

function amAlert(labels: Labels, fp: string, status: Partial<AmAlert> = {}): AmAlert {
  return { labels, fingerprint: fp, state: "active", silencedBy: [], inhibitedBy: [], ...status };
}

/** A label set like `labels` but for one change: a label dropped, a value changed, or another alertname. */
const nearMiss = (labels: Labels) =>
  fc.oneof(
    ...Object.keys(labels)
      .filter((name) => name !== "alertname")
      .map((name) => fc.constant(Object.fromEntries(Object.entries(labels).filter(([n]) => n !== name)))),
    ...Object.keys(labels).map((name) =>
      nonEmpty.filter((v) => v !== labels[name]).map((v) => ({ ...labels, [name]: v })),
    ),
    fc.constant({ ...labels, alertname: `${labels.alertname}X` }),
  );

describe("matching a Prometheus alert to Alertmanager's", () => {
  test.prop([alertLabels, externalLabels, fingerprint, fc.array(fc.tuple(alertLabels, fingerprint))])(
    "finds the alert Alertmanager holds with the external labels added, among others",
    (labels, external, fp, others) => {
      // External labels never override the alert's own (Prometheus keeps the alert's).
      const sent = { ...external, ...labels };
      const unrelated = others
        .filter(([other]) => !Object.entries(labels).every(([n, v]) => other[n] === v))
        .map(([other, otherFp]) => amAlert({ ...external, ...other }, otherFp));
      const found = matchingAmAlert(labels, [...unrelated, amAlert(sent, fp)]);
      expect(found?.labels).toStrictEqual(sent);
      expect(found?.fingerprint).toBe(fp);
    },
  );

  test.prop([
    alertLabels.chain((labels) => fc.tuple(fc.constant(labels), nearMiss(labels))),
    externalLabels,
    fingerprint,
  ])(
    "never finds a near miss: a label missing, another value, another alertname",
    ([labels, miss], external, fp) => {
      // The external labels carry none of the alert's names: they cannot make up for the missing one.
      const held = amAlert({ ...external, ...miss }, fp);
      expect(matchingAmAlert(labels, [held])).toBeUndefined();
      const index = new AmAlertIndex({ alerts: [held], silences: [] });
      expect(index.statusOf({ labels, state: "firing" })).toStrictEqual({ alertmanager: "not received" });
    },
  );

  test.prop([alertLabels, externalLabels, fingerprint, fingerprint, fingerprint])(
    "prefers the closest: the fewest labels, then the lowest fingerprint",
    (labels, external, a, b, c) => {
      const exact = amAlert({ ...labels }, a);
      const wider = amAlert({ ...labels, zone: "z" }, b);
      expect(matchingAmAlert(labels, [wider, exact])?.fingerprint).toBe(a);
      // Two replicas: the same alert with another replica label, as many labels each.
      const one = amAlert({ ...labels, ...external, replica: "0" }, b);
      const two = amAlert({ ...labels, ...external, replica: "1" }, c);
      const lowest = [b, c].sort()[0];
      expect(matchingAmAlert(labels, [one, two])?.fingerprint).toBe(lowest);
      expect(matchingAmAlert(labels, [two, one])?.fingerprint).toBe(lowest);
    },
  );

  test.prop([alertLabels, fingerprint])(
    "says nothing of a pending alert, which Prometheus does not send",
    (labels, fp) => {
      const view = {
        alerts: [amAlert(labels, fp, { state: "suppressed", silencedBy: ["s"] })],
        silences: [],
      };
      expect(alertmanagerStatusOf({ labels, state: "pending" }, view)).toBeUndefined();
      expect(alertmanagerStatusOf({ labels, state: "firing" }, view)?.alertmanager).toBe("silenced");
    },
  );
});

describe("Alertmanager's status of an alert", () => {
  const silence = (id: string, more: Partial<AmSilence> = {}): AmSilence => ({
    id,
    matchers: [{ name: "alertname", value: "X", isRegex: false, isEqual: true }],
    state: "active",
    comment: `why ${id}`,
    createdBy: `who ${id}`,
    endsAt: "2030-01-01T00:00:00.000Z",
    ...more,
  });
  const target = { alertname: "Notice", instance: "i1", job: "j", severity: "notice" };
  const source = amAlert({ alertname: "Warning", instance: "i1", job: "j", severity: "warning" }, "f00d");

  it("active; silenced by each silence with its comment, creator and end (an unknown one by id)", () => {
    const silenced = amAlert(target, "beef", { state: "suppressed", silencedBy: ["s1", "gone"] });
    const index = new AmAlertIndex({ alerts: [silenced], silences: [silence("s1"), silence("s2")] });
    expect(index.statusOf({ labels: target, state: "firing" })).toStrictEqual({
      alertmanager: "silenced",
      silenced_by: [
        { id: "s1", comment: "why s1", created_by: "who s1", ends_at: "2030-01-01T00:00:00.000Z" },
        { id: "gone" },
      ],
    });
    const active = new AmAlertIndex({ alerts: [amAlert(target, "beef")], silences: [] });
    expect(active.statusOf({ labels: target, state: "firing" })).toStrictEqual({ alertmanager: "active" });
    const waiting = new AmAlertIndex({
      alerts: [amAlert(target, "beef", { state: "unprocessed" })],
      silences: [],
    });
    expect(waiting.statusOf({ labels: target, state: "firing" })).toStrictEqual({
      alertmanager: "unprocessed",
    });
  });

  it("inhibited by an alert named with the labels it does not share, or by its fingerprint when not listed", () => {
    const inhibited = amAlert(target, "beef", { state: "suppressed", inhibitedBy: ["f00d", "0bad"] });
    const index = new AmAlertIndex({ alerts: [inhibited, source], silences: [] });
    expect(index.statusOf({ labels: target, state: "firing" })).toStrictEqual({
      alertmanager: "inhibited",
      inhibited_by: [{ alertname: "Warning", labels: { severity: "warning" } }, { fingerprint: "0bad" }],
    });
  });

  it("silenced and inhibited at once: silenced, with both lists", () => {
    const both = amAlert(target, "beef", { state: "suppressed", silencedBy: ["s1"], inhibitedBy: ["f00d"] });
    const status = alertmanagerStatusOf(
      { labels: target, state: "firing" },
      { alerts: [both, source], silences: [silence("s1", { comment: "", createdBy: "" })] },
    );
    expect(status).toStrictEqual({
      alertmanager: "silenced",
      silenced_by: [{ id: "s1", ends_at: "2030-01-01T00:00:00.000Z" }],
      inhibited_by: [{ alertname: "Warning", labels: { severity: "warning" } }],
    });
  });

  it("reads Alertmanager's API v2 shapes, and refuses what is not one", () => {
    expect(
      amAlertOf({
        labels: { alertname: "A" },
        fingerprint: "f",
        status: { state: "suppressed", silencedBy: ["s"], inhibitedBy: null },
        annotations: {},
      }),
    ).toStrictEqual({
      labels: { alertname: "A" },
      fingerprint: "f",
      state: "suppressed",
      silencedBy: ["s"],
      inhibitedBy: [],
    });
    expect(amAlertOf({ labels: { alertname: "A" }, status: { state: "active" } })).toBeUndefined();
    expect(amAlertOf({ labels: { a: 1 }, fingerprint: "f", status: { state: "active" } })).toBeUndefined();
    expect(
      amSilenceOf({
        id: "s",
        status: { state: "active" },
        matchers: [{ name: "a", value: "b" }],
        endsAt: "e",
      }),
    ).toStrictEqual({
      id: "s",
      state: "active",
      matchers: [{ name: "a", value: "b", isRegex: false, isEqual: true }],
      comment: "",
      createdBy: "",
      endsAt: "e",
    });
    expect(amSilenceOf({ id: "s", status: { state: "active" }, matchers: [{ name: "a" }] })).toBeUndefined();
  });
});

describe("silences matched as Alertmanager matches them", () => {
  // The caller loads the regex engine alongside its reads (readAlertmanager); here, once before all.
  beforeAll(loadRegexEngine);
  const names = fc.constantFrom("alertname", "instance", "job");
  const labels = fc.dictionary(
    names,
    value.filter((v) => v !== ""),
    { maxKeys: 3 },
  );
  const literal = fc.constantFrom("a", "b", "c", "", "a.b");
  const matcher: fc.Arbitrary<AmMatcher> = fc.record({
    name: names,
    value: fc.oneof(literal, fc.constantFrom("a|b", "a.*", ".+", "b?", "a.b")),
    isRegex: fc.boolean(),
    isEqual: fc.boolean(),
  });

  /** Alertmanager's semantics written out: a missing label is "", a regex matches the whole value. */
  function reference(m: AmMatcher, set: Labels): boolean {
    const v = set[m.name] ?? "";
    const hit = m.isRegex ? new RegExp(`^(?:${m.value})$`, "s").test(v) : v === m.value;
    return m.isEqual ? hit : !hit;
  }

  test.prop([fc.array(matcher, { minLength: 1, maxLength: 3 }), labels])(
    "equal, not equal, regex (anchored) and negative regex, a missing label as empty",
    (matchers, set) => {
      expect(silenceMatches({ matchers }, set)).toBe(matchers.every((m) => reference(m, set)));
    },
  );

  it("anchors a regex as Alertmanager does", () => {
    const m = (value: string): AmMatcher[] => [{ name: "alertname", value, isRegex: true, isEqual: true }];
    expect(silenceMatches({ matchers: m("Disk.*|Memory.*") }, { alertname: "DiskFull" })).toBe(true);
    expect(silenceMatches({ matchers: m("Disk.*|Memory.*") }, { alertname: "HighDiskFull" })).toBe(false);
    expect(silenceMatches({ matchers: m("Disk") }, { alertname: "DiskFull" })).toBe(false);
    // Lookaround is not RE2: not known here.
    expect(silenceMatches({ matchers: m("(?=Disk)Disk") }, { alertname: "Disk" })).toBeUndefined();
  });

  let listed = 0;
  test.prop([
    fc.array(
      fc.record({
        id: fc.uuid(),
        matchers: fc.array(matcher, { minLength: 1, maxLength: 2 }),
        state: fc.constantFrom("active", "pending", "expired"),
        comment: fc.constant(""),
        createdBy: fc.constant(""),
        endsAt: fc.constant(""),
      }),
      { maxLength: 6 },
    ),
    fc.array(
      labels.map((set) => ({ labels: set })),
      { maxLength: 4 },
    ),
  ])("lists the active silences no alert matches, in order", (silences, alerts) => {
    const expected = silences.filter(
      (s) => s.state === "active" && !alerts.some((a) => s.matchers.every((m) => reference(m, a.labels))),
    );
    const unmatched = silencesMatchingNoAlert(silences, alerts);
    expect(unmatched).toStrictEqual(expected);
    listed += unmatched.length;
  });
  it("listed some", () => expect(listed).toBeGreaterThan(20));

  it("leaves out a silence whose regex it cannot evaluate", () => {
    const unreadable: AmSilence = {
      id: "x",
      matchers: [{ name: "alertname", value: "(?!A)", isRegex: true, isEqual: true }],
      state: "active",
      comment: "",
      createdBy: "",
      endsAt: "",
    };
    expect(silencesMatchingNoAlert([unreadable], [])).toStrictEqual([]);
    expect(silencesMatchingNoAlert([unreadable], [{ labels: { alertname: "B" } }])).toStrictEqual([]);
  });
});
