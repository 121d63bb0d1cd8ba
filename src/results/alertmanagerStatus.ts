/**
 * Prometheus's alerts joined to Alertmanager's view of them: which alert Alertmanager holds for each one
 * Prometheus fires, whether it is active, silenced (by which silences) or inhibited (by which alerts), and
 * which active silences match no alert at all. Pure: the caller reads Alertmanager's API v2 answers
 * (`GET /api/v2/alerts` with every state, `GET /api/v2/silences`) and hands them over.
 */

import { type LabelMatcher, matches, SelectorError } from "../promql/matchers.js";
import { isPlainObject } from "../util/json.js";
import { compareCodePoints, type Labels, labelSet, labelValue, sortedPairs } from "./labelSets.js";

/** One alert as Alertmanager holds it (`GET /api/v2/alerts`), the fields the join reads. */
export interface AmAlert {
  labels: Labels;
  fingerprint: string;
  /** `active`, `suppressed` (silenced or inhibited) or `unprocessed` (received, not yet evaluated). */
  state: string;
  silencedBy: string[];
  inhibitedBy: string[];
}

/** An Alertmanager matcher as its API v2 writes it (`isEqual` missing, before 0.22, means equal). */
export interface AmMatcher {
  name: string;
  value: string;
  isRegex: boolean;
  isEqual: boolean;
}

/** One silence (`GET /api/v2/silences`), the fields the join reads. */
export interface AmSilence {
  id: string;
  matchers: AmMatcher[];
  /** `active`, `pending` or `expired`. */
  state: string;
  comment: string;
  createdBy: string;
  endsAt: string;
}

/** What Alertmanager said, or why it could not be asked (no Alertmanager configured, a refusal). */
export type AlertmanagerView =
  | { available: true; alerts: AmAlert[]; silences: AmSilence[] }
  | { available: false; reason: string };

/** A silence as an alert's `silenced_by` shows it. Comment and creator are untrusted text (bounded on reading). */
export interface SilenceRef {
  id: string;
  comment?: string;
  created_by?: string;
  ends_at?: string;
}

/** An inhibiting alert: its alertname and the labels it does not share with the inhibited one, else its fingerprint. */
export type InhibitorRef = { alertname: string; labels?: Labels } | { fingerprint: string };

/**
 * Alertmanager's status of one firing alert, the keys as ListAlerts writes them (lists left out when
 * empty). `not received`: Prometheus fires it but Alertmanager does not hold it (not sent yet, relabelled
 * away by `alert_relabel_configs`, or sent to another Alertmanager). `unprocessed`: received, not yet
 * evaluated against silences and inhibitions (a moment).
 */
export interface AlertmanagerStatus {
  alertmanager: "active" | "silenced" | "inhibited" | "unprocessed" | "not received";
  silenced_by?: SilenceRef[];
  inhibited_by?: InhibitorRef[];
}

// ---------------------------------------------------------------------------------------------------------
// Reading the answers

const strings = (raw: unknown): string[] =>
  Array.isArray(raw) ? raw.filter((item): item is string => typeof item === "string") : [];

/** One element of `GET /api/v2/alerts`, or undefined when it has no labels object, fingerprint or status. */
export function amAlertOf(raw: unknown): AmAlert | undefined {
  if (!isPlainObject(raw) || !isPlainObject(raw.status)) return undefined;
  const labels = labelSet(raw.labels);
  const { fingerprint } = raw;
  const { state } = raw.status;
  if (!labels || typeof fingerprint !== "string" || typeof state !== "string") return undefined;
  return {
    labels,
    fingerprint,
    state,
    silencedBy: strings(raw.status.silencedBy),
    inhibitedBy: strings(raw.status.inhibitedBy),
  };
}

/**
 * One element of `GET /api/v2/silences`, or undefined when its id, state or a matcher is not of that
 * shape (a silence read without one of its matchers would look broader than it is).
 */
export function amSilenceOf(raw: unknown): AmSilence | undefined {
  if (!isPlainObject(raw) || !isPlainObject(raw.status) || typeof raw.status.state !== "string")
    return undefined;
  if (typeof raw.id !== "string" || !Array.isArray(raw.matchers)) return undefined;
  const matchers: AmMatcher[] = [];
  for (const matcher of raw.matchers) {
    if (!isPlainObject(matcher) || typeof matcher.name !== "string" || typeof matcher.value !== "string")
      return undefined;
    matchers.push({
      name: matcher.name,
      value: matcher.value,
      isRegex: matcher.isRegex === true,
      isEqual: matcher.isEqual !== false,
    });
  }
  return {
    id: raw.id,
    matchers,
    state: raw.status.state,
    comment: typeof raw.comment === "string" ? raw.comment : "",
    createdBy: typeof raw.createdBy === "string" ? raw.createdBy : "",
    endsAt: typeof raw.endsAt === "string" ? raw.endsAt : "",
  };
}

// ---------------------------------------------------------------------------------------------------------
// Matching an alert of Prometheus to Alertmanager's

/**
 * The Alertmanager alert that is this Prometheus alert. Prometheus sends an alert with its labels plus its
 * external labels (which may not override the alert's own), so Alertmanager's has every label of
 * Prometheus's, equal, and possibly more. Of several such (the same alert from another Prometheus, or
 * one with more labels), the closest: the fewest labels, then the lowest fingerprint (deterministic).
 * Undefined when none: a label differs, is missing, or the alertname is another.
 */
export function matchingAmAlert(labels: Labels, alerts: readonly AmAlert[]): AmAlert | undefined {
  const alertname = labelValue(labels, "alertname");
  const own = Object.entries(labels);
  let best: { alert: AmAlert; size: number } | undefined;
  for (const alert of alerts) {
    if (labelValue(alert.labels, "alertname") !== alertname) continue;
    if (!own.every(([name, value]) => Object.hasOwn(alert.labels, name) && alert.labels[name] === value))
      continue;
    const size = Object.keys(alert.labels).length;
    if (
      best === undefined ||
      size < best.size ||
      (size === best.size && compareCodePoints(alert.fingerprint, best.alert.fingerprint) < 0)
    )
      best = { alert, size };
  }
  return best?.alert;
}

/** An index of Alertmanager's alerts by alertname, so that a list of alerts is joined in one pass each. */
export class AmAlertIndex {
  private readonly byName = new Map<string, AmAlert[]>();
  private readonly byFingerprint = new Map<string, AmAlert>();
  private readonly silences = new Map<string, AmSilence>();

  constructor(view: { alerts: readonly AmAlert[]; silences: readonly AmSilence[] }) {
    for (const alert of view.alerts) {
      const name = labelValue(alert.labels, "alertname");
      const list = this.byName.get(name);
      if (list) list.push(alert);
      else this.byName.set(name, [alert]);
      this.byFingerprint.set(alert.fingerprint, alert);
    }
    for (const silence of view.silences) this.silences.set(silence.id, silence);
  }

  /** The alert matchingAmAlert finds among those of the same alertname. */
  find(labels: Labels): AmAlert | undefined {
    return matchingAmAlert(labels, this.byName.get(labelValue(labels, "alertname")) ?? []);
  }

  /**
   * Alertmanager's status of a Prometheus alert: undefined unless it is firing (Prometheus sends only
   * firing alerts: a pending one is in no Alertmanager, as it should be).
   */
  statusOf(alert: { labels: Labels; state: string }): AlertmanagerStatus | undefined {
    if (alert.state !== "firing") return undefined;
    const held = this.find(alert.labels);
    if (held === undefined) return { alertmanager: "not received" };
    const silenced = held.silencedBy.map((id) => this.silenceRef(id));
    const inhibited = held.inhibitedBy.map((fingerprint) => this.inhibitorRef(fingerprint, held.labels));
    const word =
      silenced.length > 0
        ? "silenced"
        : inhibited.length > 0
          ? "inhibited"
          : held.state === "unprocessed"
            ? "unprocessed"
            : "active";
    return {
      alertmanager: word,
      ...(silenced.length > 0 ? { silenced_by: silenced } : {}),
      ...(inhibited.length > 0 ? { inhibited_by: inhibited } : {}),
    };
  }

  /** The silence by id, with what it says; its id alone when the silences list has it not (created since). */
  private silenceRef(id: string): SilenceRef {
    const silence = this.silences.get(id);
    if (silence === undefined) return { id };
    return {
      id,
      ...(silence.comment !== "" ? { comment: silence.comment } : {}),
      ...(silence.createdBy !== "" ? { created_by: silence.createdBy } : {}),
      ...(silence.endsAt !== "" ? { ends_at: silence.endsAt } : {}),
    };
  }

  /** The inhibiting alert's alertname and the labels that tell it from the inhibited one (`equal` ones are shared). */
  private inhibitorRef(fingerprint: string, inhibited: Labels): InhibitorRef {
    const source = this.byFingerprint.get(fingerprint);
    if (source === undefined) return { fingerprint };
    const distinct = sortedPairs(source.labels).filter(
      ([name, value]) =>
        name !== "alertname" && !(Object.hasOwn(inhibited, name) && inhibited[name] === value),
    );
    const alertname = labelValue(source.labels, "alertname");
    return distinct.length > 0 ? { alertname, labels: Object.fromEntries(distinct) } : { alertname };
  }
}

/** Alertmanager's status of one Prometheus alert (see AmAlertIndex.statusOf); for many, build one index. */
export function alertmanagerStatusOf(
  alert: { labels: Labels; state: string },
  view: { alerts: readonly AmAlert[]; silences: readonly AmSilence[] },
): AlertmanagerStatus | undefined {
  return new AmAlertIndex(view).statusOf(alert);
}

// ---------------------------------------------------------------------------------------------------------
// Silences

/** An Alertmanager matcher as a label matcher: the same semantics (a regex anchored, a missing label is ""). */
function labelMatcherOf(matcher: AmMatcher): LabelMatcher {
  const type = matcher.isRegex ? (matcher.isEqual ? "=~" : "!~") : matcher.isEqual ? "=" : "!=";
  return { name: matcher.name, type, value: matcher.value };
}

/**
 * Whether a silence's matchers all hold on `labels`, as Alertmanager decides it; undefined when one of its
 * regexes cannot be evaluated here (it is not valid RE2).
 */
export function silenceMatches(
  silence: { matchers: readonly AmMatcher[] },
  labels: Labels,
): boolean | undefined {
  try {
    return silence.matchers.every((matcher) => matches(labels, labelMatcherOf(matcher)));
  } catch (error) {
    if (error instanceof SelectorError) return undefined;
    throw error;
  }
}

/**
 * The active silences that match none of `alerts` (Alertmanager's alerts: their labels carry the external
 * labels silences are written against), in the order given. A silence whose regex cannot be evaluated here
 * is left out: it is not known to match nothing.
 */
export function silencesMatchingNoAlert(
  silences: readonly AmSilence[],
  alerts: readonly { labels: Labels }[],
): AmSilence[] {
  return silences.filter(
    (silence) =>
      silence.state === "active" &&
      alerts.every((alert) => silenceMatches(silence, alert.labels) === false) &&
      // No alert at all: the regex is still checked, so that an unreadable one is never listed.
      (alerts.length > 0 || silenceMatches(silence, {}) !== undefined),
  );
}
