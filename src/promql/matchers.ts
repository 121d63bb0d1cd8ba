/**
 * Label matchers, parsed from series selectors as a user writes them, for filtering entries here rather than
 * in Prometheus: `/api/v1/alerts` takes no matchers at all. Matching follows Prometheus: a missing label is
 * `""`, regexes are RE2 fully anchored with `.` matching newlines, and several selectors match what any one
 * of them matches.
 */

import type { RE2JS } from "re2js";
import { hasLoneSurrogate } from "../util/json.js";
import { memoize } from "../util/memoize.js";
import { children, loadPromql, type PromqlModule, type SyntaxNode } from "./syntax.js";

/** re2js, the RE2 engine (Go's `regexp` ported): loaded on first need, see loadRegexEngine. */
type Re2js = typeof import("re2js");

/** One matcher of a selector: `name="value"`, `name!="value"`, `name=~"regex"` or `name!~"regex"`. */
export interface LabelMatcher {
  name: string;
  type: "=" | "!=" | "=~" | "!~";
  /** The value unquoted; for `=~` and `!~` the regex as written (Prometheus's RE2 syntax, unanchored). */
  value: string;
}

/** A selector that cannot be used; the message names the text and the forms accepted, for the model to retry. */
export class SelectorError extends Error {
  override name = "SelectorError";
}

/** What is wrong with a selector, before the text and the accepted forms are added to make a SelectorError. */
class Invalid extends Error {}

/** A metric name (or alertname) alone: the whole selector. */
const BARE_NAME = /^[A-Za-z_:][A-Za-z0-9_:]*$/;
/** A name before the braces. */
const LEADING_NAME = /^([A-Za-z_:][A-Za-z0-9_:]*)\s*(?=\{)/;
/** Matchers without their braces start with a label name (bare or quoted) and a match operator. */
const BARE_MATCHERS = /^(?:[A-Za-z_][A-Za-z0-9_]*|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\s*(?:=|!=|!~)/s;

/**
 * Each text as one selector (a list of matchers that must all match). A text is a series selector the way
 * a user writes one:
 *
 * - `{alertname="HighErrorRate", severity=~"page|critical"}`
 * - `HighErrorRate{severity="page"}`: the name before the braces is a matcher `<nameLabel>="HighErrorRate"`
 *   (so an alert selector can use the alertname where PromQL has the metric name), as is `__name__` in a
 *   matcher and a quoted name alone in the braces (`{"my.name"}`)
 * - `HighErrorRate` alone
 * - `alertname="HighErrorRate", severity="page"`: matchers without their braces
 *
 * Strings are unquoted as PromQL does (double or single quotes with Go escapes, backticks raw) and regexes
 * are checked. Anything else (a syntax error, a range, `offset`, `@`, a function, an operator, `{}`) throws
 * SelectorError. Each regex is compiled once, here, and kept with its matcher for matchesAny.
 *
 * @example
 * ```ts
 * await parseSelectors(['HighErrorRate{severity=~"page|critical"}'], { nameLabel: "alertname" });
 * // [[{ name: "alertname", type: "=", value: "HighErrorRate" }, { name: "severity", type: "=~", value: "page|critical" }]]
 * ```
 */
export async function parseSelectors(
  texts: readonly string[],
  options: { nameLabel: string },
): Promise<LabelMatcher[][]> {
  const selectors: LabelMatcher[][] = [];
  for (const text of texts) {
    try {
      selectors.push(await parseSelector(text, options.nameLabel));
    } catch (error) {
      if (!(error instanceof Invalid)) throw error;
      throw new SelectorError(
        `Cannot use the selector ${JSON.stringify(text)}: ${error.message}. ` +
          `Write one series selector per text, as {${options.nameLabel}="X", severity=~"page|critical"}, ` +
          `X{severity="page"}, X, or ${options.nameLabel}="X", severity="page"; ` +
          `several texts match what any one of them matches.`,
      );
    }
  }
  return selectors;
}

async function parseSelector(text: string, nameLabel: string): Promise<LabelMatcher[]> {
  const trimmed = text.trim();
  if (trimmed === "") throw new Invalid("it is empty");
  if (hasLoneSurrogate(trimmed)) throw new Invalid("it is not valid text");
  if (BARE_NAME.test(trimmed)) return [{ name: nameLabel, type: "=", value: trimmed }];
  // The name is taken apart from the braces because the parser reads some names as keywords (`nan`,
  // `offset`, `on`): as a selector's name, Prometheus would take them as names too.
  const lead = LEADING_NAME.exec(trimmed);
  const body = lead ? trimmed.slice(lead[0].length) : BARE_MATCHERS.test(trimmed) ? `{${trimmed}}` : trimmed;
  const [{ parser }] = await Promise.all([loadPromql(), loadRegexEngine()]);
  const selector = vectorSelector(parser, body);
  let name = lead?.[1];
  const identifier = children(selector).find((c) => c.name === "Identifier");
  if (identifier) name = body.slice(identifier.from, identifier.to);
  const matchers: LabelMatcher[] = [];
  const list = children(selector).find((c) => c.name === "LabelMatchers");
  for (const node of list ? children(list) : []) {
    if (node.name === "QuotedLabelName") {
      if (name !== undefined) throw new Invalid("it gives the name twice");
      name = unquote(body, node.firstChild);
      continue;
    }
    const matcher = labelMatcher(body, node, nameLabel);
    if (matcher.type === "=~" || matcher.type === "!~") regexOf(matcher);
    matchers.push(matcher);
  }
  if (name !== undefined) matchers.unshift({ name: nameLabel, type: "=", value: name });
  if (matchers.length === 0) {
    throw new Invalid("it has no matchers and would match everything: give at least one, or no selector");
  }
  return matchers;
}

/** The body's expression when it is exactly one vector selector, which the parser read without error. */
function vectorSelector(parser: PromqlModule["parser"], body: string): SyntaxNode {
  const tree = parser.parse(body);
  let error: number | undefined;
  tree.iterate({
    enter: (node) => {
      if (node.type.isError && error === undefined) error = node.from;
      return error === undefined;
    },
  });
  if (error !== undefined) {
    const near = body.slice(error, error + 20);
    throw new Invalid(near === "" ? "it ends too soon" : `it does not parse at ${JSON.stringify(near)}`);
  }
  const exprs = children(tree.topNode);
  const [expr] = exprs;
  if (!expr || exprs.length !== 1) throw new Invalid("it is not one expression");
  if (expr.name !== "VectorSelector")
    throw new Invalid(`it is ${NOT_A_SELECTOR[expr.name] ?? "not a selector"}`);
  return expr;
}

const NOT_A_SELECTOR: Readonly<Record<string, string>> = {
  MatrixSelector: "a range selector: leave out the [range]",
  OffsetExpr: "a selector with offset: leave out the offset",
  StepInvariantExpr: "a selector with @: leave out the @",
  SubqueryExpr: "a subquery",
  FunctionCall: "a function call",
  AggregateExpr: "an aggregation",
  BinaryExpr: "an expression with an operator: to match any of several selectors, give each as its own text",
  ParenExpr: "in parentheses",
  UnaryExpr: "a negation",
  NumberDurationLiteral: "a number",
  StringLiteral: "a string",
};

const MATCH_TYPES: Readonly<Record<string, LabelMatcher["type"]>> = {
  EqlSingle: "=",
  Neq: "!=",
  EqlRegex: "=~",
  NeqRegex: "!~",
};

function labelMatcher(body: string, node: SyntaxNode, nameLabel: string): LabelMatcher {
  const [label, op, value] = children(node);
  const type = op?.name === "MatchOp" ? MATCH_TYPES[op.firstChild?.name ?? ""] : undefined;
  if (!label || !type || value?.name !== "StringLiteral") throw new Invalid("a matcher is incomplete");
  const name =
    label.name === "QuotedLabelName" ? unquote(body, label.firstChild) : body.slice(label.from, label.to);
  return { name: name === "__name__" ? nameLabel : name, type, value: unquote(body, value) };
}

// ---------------------------------------------------------------------------------------------------------
// Strings

const FATAL_UTF8 = new TextDecoder("utf-8", { fatal: true });

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
};

/**
 * A string literal's value, as Prometheus unquotes it (Go's rules, single quotes like double): in quotes,
 * the escapes `\a \b \f \n \r \t \v \\`, the quote itself, `\xFF` and `\377` (bytes, which together must
 * be UTF-8), `\uFFFF` and `\UFFFFFFFF`; in backticks, the text as it is.
 */
function unquote(body: string, node: SyntaxNode | null): string {
  if (!node) throw new Invalid("a string is missing");
  const literal = body.slice(node.from, node.to);
  const quote = literal[0];
  const end = literal.length - 1;
  if (literal.length < 2 || literal[end] !== quote) throw new Invalid(`the string ${literal} is not closed`);
  if (quote === "`") return literal.slice(1, end);
  let out = "";
  let bytes: number[] = [];
  const flushBytes = () => {
    if (bytes.length === 0) return;
    try {
      out += FATAL_UTF8.decode(Uint8Array.from(bytes));
    } catch {
      throw new Invalid(`the string ${literal} has byte escapes that are not UTF-8`);
    }
    bytes = [];
  };
  const add = (text: string) => {
    flushBytes();
    out += text;
  };
  for (let i = 1; i < end; ) {
    const c = literal[i] as string;
    if (c === quote || c === "\n") throw new Invalid(`the string ${literal} is not closed`);
    if (c !== "\\") {
      add(c);
      i++;
      continue;
    }
    const e = literal[i + 1] ?? "";
    const simple = Object.hasOwn(SIMPLE_ESCAPES, e) ? SIMPLE_ESCAPES[e] : e === quote ? quote : undefined;
    // How many characters the escape takes; the closing quote must stay after them (`"a\"` is not closed).
    const length =
      simple !== undefined ? 2 : e === "x" || /[0-7]/.test(e) ? 4 : e === "u" ? 6 : e === "U" ? 10 : 0;
    if (length === 0) throw new Invalid(`the string ${literal} has an unknown escape \\${e}`);
    if (i + length > end) {
      throw new Invalid(`the string ${literal} ${length === 2 ? "is not closed" : "has a bad escape"}`);
    }
    if (simple !== undefined) {
      add(simple);
    } else if (e !== "u" && e !== "U") {
      const digits = e === "x" ? literal.slice(i + 2, i + 4) : literal.slice(i + 1, i + 4);
      const byte = e === "x" ? hexValue(digits) : /^[0-7]{3}$/.test(digits) ? Number.parseInt(digits, 8) : -1;
      if (byte < 0 || byte > 0xff)
        throw new Invalid(`the string ${literal} has a bad escape \\${literal.slice(i + 1, i + 4)}`);
      bytes.push(byte);
    } else {
      const code = hexValue(literal.slice(i + 2, i + length));
      if (code < 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
        throw new Invalid(`the string ${literal} has a bad escape \\${literal.slice(i + 1, i + length)}`);
      }
      add(String.fromCodePoint(code));
    }
    i += length;
  }
  flushBytes();
  return out;
}

function hexValue(digits: string): number {
  return /^[0-9a-fA-F]+$/.test(digits) ? Number.parseInt(digits, 16) : -1;
}

// ---------------------------------------------------------------------------------------------------------
// Regexes

/** The RE2 engine, once loadRegexEngine has loaded it. */
let engine: Re2js | undefined;

/**
 * Loads the regex engine (re2js) on first need rather than at start-up (it would add to every cold
 * start); a failure to load is not kept. parseSelectors calls it; a caller that matches hand-built
 * matchers (Alertmanager's silences) awaits it first, alongside its own I/O.
 */
export const loadRegexEngine: () => Promise<Re2js> = memoize(
  async () => {
    engine = await import("re2js");
    return engine;
  },
  { onRejection: "retry" },
);

/** Each matcher's compiled regex: compiled once, by parseSelectors or on first use, and dropped with the matcher. */
const REGEXES = new WeakMap<LabelMatcher, RE2JS>();

function regexOf(matcher: LabelMatcher): RE2JS {
  let regex = REGEXES.get(matcher);
  if (!regex) {
    regex = compileRegex(matcher.value);
    REGEXES.set(matcher, regex);
  }
  return regex;
}

/**
 * An RE2 regex compiled as Prometheus and Alertmanager compile it: Go's RE2 syntax (re2js ports Go's
 * `regexp`), matched against the whole value (testExact, as their `^(?:…)$`), `.` matching newlines.
 *
 * re2js matches in time linear in the value: a pathological regex such as `(a+)+b` against a long value
 * answers as fast as Prometheus would, where the JavaScript RegExp this replaced backtracked for minutes
 * (bench case `regexMatching`). The syntax is now exactly RE2's, which changed what is accepted
 * (test/unit/matchers.test.ts, "RE2's syntax, no more and no less"): accepted now, as Prometheus accepts
 * them, `(?U)`, flags past the start (`a(?i)b`), `[[:^alpha:]]`, `\Q…\E`; rejected now, as Prometheus
 * rejects them, JavaScript-only escapes (`\u0041`, `\cA`) and repeat counts over 1000 (`a{1001}`);
 * `\s` no longer matches `\v` nor Unicode spaces (RE2's `\s` is `[\t\n\f\r ]`). Lookaround and
 * backreferences stay rejected.
 */
function compileRegex(source: string): RE2JS {
  if (!engine) throw new Error("the regex engine is not loaded: await loadRegexEngine() first");
  try {
    return engine.RE2JS.compile(source, engine.RE2JS.DOTALL);
  } catch (error) {
    if (!(error instanceof engine.RE2JSException)) throw error;
    const reason = error.message.replace(/^error parsing regexp: /, "");
    throw new Invalid(
      `the regex ${JSON.stringify(source)} is not valid RE2 (Prometheus's syntax): ${reason}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------------------
// Matching

/**
 * Whether `labels` match any of `selectors`, each a list of matchers that must all match; true when there
 * are no selectors (no filter). A missing label matches as `""`; a regex must match the whole value.
 */
export function matchesAny(
  labels: Record<string, string>,
  selectors: readonly (readonly LabelMatcher[])[],
): boolean {
  if (selectors.length === 0) return true;
  return selectors.some((matchers) => matchers.every((matcher) => matches(labels, matcher)));
}

/**
 * Whether `labels` satisfy one matcher. A regex that does not compile (only possible for a matcher not from
 * parseSelectors) throws SelectorError.
 */
export function matches(labels: Record<string, string>, matcher: LabelMatcher): boolean {
  // A missing label is "", and never one of the object's prototype's (`constructor`).
  const value = Object.hasOwn(labels, matcher.name) ? (labels[matcher.name] as string) : "";
  switch (matcher.type) {
    case "=":
      return value === matcher.value;
    case "!=":
      return value !== matcher.value;
    case "=~":
      return compiled(matcher).testExact(value);
    case "!~":
      return !compiled(matcher).testExact(value);
  }
}

function compiled(matcher: LabelMatcher): RE2JS {
  try {
    return regexOf(matcher);
  } catch (error) {
    throw error instanceof Invalid
      ? new SelectorError(`${matcher.name}${matcher.type}: ${error.message}`)
      : error;
  }
}
