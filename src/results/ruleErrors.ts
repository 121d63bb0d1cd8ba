/**
 * One plain line for the rule-evaluation errors Prometheus reports most (`lastError` of /api/v1/rules):
 * what the error means and what it implies for the rule, so that `out of bounds` reads as "this recording
 * rule's results are not stored". Matched on the exact wording Prometheus 2.x emits (promql/engine.go,
 * storage/interface.go, rules/recording.go, rules/alerting.go); any other text gets no explanation
 * rather than a guessed one.
 */

export type RuleType = "alerting" | "recording";

/** What a failed evaluation implies, by rule type: the rule's whole result for that evaluation is lost. */
const EVALUATION_LOST: Readonly<Record<RuleType, string>> = {
  recording: "Nothing is recorded, so alerts and dashboards that read this rule see no new data.",
  alerting: "The rule is not evaluated, so it cannot fire.",
};

/** Storage refusing samples: a recording rule's results, an alerting rule's ALERTS series (sent all the same). */
const NOT_STORED: Readonly<Record<RuleType, string>> = {
  recording: "Its results are not stored, so alerts and dashboards that read this rule see no new data.",
  alerting:
    "Its ALERTS series is not stored (alert history is lost); the alert itself is still evaluated and sent.",
};

interface Explanation {
  /** Prometheus's wording, as it ends `lastError` (possibly after a prefix such as a wrapping `...: `). */
  readonly pattern: RegExp;
  readonly means: string;
  /** What follows for each type: the evaluation lost (default) or the results not stored. */
  readonly implies: Readonly<Record<RuleType, string>>;
}

/** Storage errors are whole messages (storage.ErrOutOfBounds...): anchored so that a longer text is not one. */
const storage = (message: string) => new RegExp(`(?:^|: )${message}$`);

const EXPLANATIONS: readonly Explanation[] = [
  {
    pattern: storage("out of bounds"),
    means:
      "Storage refused the results: their timestamp is older than it accepts now (a clock jump, or evaluation lagging far behind).",
    implies: NOT_STORED,
  },
  {
    pattern: storage("out of order sample"),
    means:
      "Storage refused the results: a newer sample is already stored for the same series (another rule or target writes the same series).",
    implies: NOT_STORED,
  },
  {
    pattern: storage("duplicate sample for timestamp"),
    means:
      "Storage refused the results: another value is already stored for the same series and time (another rule or target writes the same series).",
    implies: NOT_STORED,
  },
  {
    pattern: storage("too old sample"),
    means: "Storage refused the results: they are older than its out-of-order window accepts.",
    implies: NOT_STORED,
  },
  {
    // "found duplicate series for the match group {…} on the right hand-side of the operation: […];many-to-many matching not allowed: matching labels must be unique on one side"
    pattern: /many-to-many matching not allowed/,
    means:
      "A join (an operator between two vectors) matched several series on both sides for the same labels: match on more labels with on(...), or aggregate one side first.",
    implies: EVALUATION_LOST,
  },
  {
    // "multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)" or
    // "multiple matches for labels: grouping labels must ensure unique matches"
    pattern: /multiple matches for labels: /,
    means:
      "A join matched several series on one side for the same labels: add group_left/group_right, or aggregate that side.",
    implies: EVALUATION_LOST,
  },
  {
    pattern: /vector cannot contain metrics with the same labelset/,
    means:
      "Two results had the same labels once the metric name was dropped (an operator or function over several metrics drops __name__): keep a label that tells them apart, or aggregate.",
    implies: EVALUATION_LOST,
  },
  {
    // "... after applying rule labels" (recording) or "... after applying alert labels" (alerting).
    pattern: /vector contains metrics with the same labelset after applying (?:rule|alert) labels/,
    means:
      "The labels the rule sets made two results identical (a label it overwrites was what told them apart).",
    implies: EVALUATION_LOST,
  },
  {
    pattern: /query timed out in |context deadline exceeded/,
    means: "The evaluation ran past the query timeout: the expression is too expensive for its interval.",
    implies: EVALUATION_LOST,
  },
  {
    pattern: /query processing would load too many samples into memory/,
    means:
      "The evaluation would load more samples than the query limit (--query.max-samples): it reads too many series or too long a range.",
    implies: EVALUATION_LOST,
  },
  {
    // "exceeded limit of 10 with 12 series" (recording) or "... alerts" (alerting): the group's `limit`.
    pattern: /^exceeded limit of \d+ with \d+ (?:series|alerts)$/,
    means: "The rule gave more results than its group's limit allows, so the whole evaluation is discarded.",
    implies: EVALUATION_LOST,
  },
];

/**
 * One line saying what `lastError` means and implies for a rule of this type; undefined when the text is
 * not one of the errors known here (no explanation rather than a wrong one).
 */
export function explainRuleError(lastError: string, type: RuleType): string | undefined {
  const known = EXPLANATIONS.find((explanation) => explanation.pattern.test(lastError));
  return known && `${known.means} ${known.implies[type]}`;
}
