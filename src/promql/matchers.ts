/**
 * Label matchers, parsed from series selectors as a user writes them, for filtering entries here rather than
 * in Prometheus: `/api/v1/alerts` takes no matchers at all. Matching follows Prometheus: a missing label is
 * `""`, regexes are RE2 fully anchored with `.` matching newlines, and several selectors match what any one
 * of them matches.
 */

import { hasLoneSurrogate } from "../json.js";
import { children, loadPromql, type PromqlModule, type SyntaxNode } from "./syntax.js";

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
  const { parser } = await loadPromql();
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

/** Each matcher's compiled regex: compiled once, by parseSelectors or on first use, and dropped with the matcher. */
const REGEXES = new WeakMap<LabelMatcher, RegExp>();

function regexOf(matcher: LabelMatcher): RegExp {
  let regex = REGEXES.get(matcher);
  if (!regex) {
    regex = compileRegex(matcher.value);
    REGEXES.set(matcher, regex);
  }
  return regex;
}

/** ASCII punctuation JavaScript's `u` mode lets a backslash escape anywhere (`-` only in a class). */
const JS_ESCAPABLE = new Set("^$\\.*+?()[]{}|/");

/**
 * An RE2 regex (Prometheus's syntax) as a JavaScript RegExp, anchored at both ends as Prometheus anchors
 * it. RE2 and JavaScript agree on the everyday syntax; where they differ this rewrites what it can (a
 * leading `(?i)`, `(?P<name>`, `\-` or `\_` outside a class, a literal `{` or `]`, `[[:alpha:]]`,
 * `\pL`, `\x{…}`, `\A`, `\z`) and rejects what RE2 has not (lookaround, backreferences), so a regex
 * that works here works in Prometheus too. Other RE2-only syntax (`(?i)` past the start, `[[:^alpha:]]`,
 * `\Q…\E`) fails to compile: a SelectorError.
 *
 * JavaScript backtracks where RE2 does not: a pathological regex (`(a+)+b`) against a long value is
 * slow here where Prometheus would be fast. Label values are short, and the regex is the caller's own.
 */
function compileRegex(source: string): RegExp {
  let flags = "su";
  let rest = source;
  const leading = /^\(\?([imsU]+)\)/.exec(source);
  if (leading) {
    for (const flag of leading[1] as string) {
      if (flag === "U") throw new Invalid(`the regex ${JSON.stringify(source)} has (?U), not supported here`);
      if (flag !== "s" && !flags.includes(flag)) flags += flag;
    }
    rest = source.slice(leading[0].length);
  }
  const pattern = translate(source, rest, flags.includes("m"));
  try {
    return new RegExp(`^(?:${pattern})$`, flags);
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^Invalid regular expression: /, "") : "";
    throw new Invalid(`the regex ${JSON.stringify(source)} is not valid: ${reason}`);
  }
}

/** RE2's ASCII classes (`[[:alpha:]]`), as ranges inside a JavaScript class. */
const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alnum: "0-9A-Za-z",
  alpha: "A-Za-z",
  ascii: "\\x00-\\x7F",
  blank: "\\t ",
  cntrl: "\\x00-\\x1F\\x7F",
  digit: "0-9",
  graph: "!-~",
  lower: "a-z",
  print: " -~",
  punct: "!-\\/:-@\\[-`\\{-~",
  space: "\\t\\n\\v\\f\\r ",
  upper: "A-Z",
  word: "0-9A-Za-z_",
  xdigit: "0-9A-Fa-f",
};

/**
 * The RE2 regex `rest` (`source` without its leading flags, if any) in JavaScript's syntax: one piece at a
 * time, each read by what it is (an escape, a character inside a class, one outside), which says up to where
 * it went. `source` names the regex in errors.
 */
function translate(source: string, rest: string, multiline: boolean): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i] as string;
    let piece: Translated;
    if (c === "\\" && i + 1 < rest.length) {
      piece = translateEscape(source, rest, i, inClass, multiline);
    } else if (inClass) {
      piece = translateInClass(source, rest, i);
      if (c === "]") inClass = false;
    } else if (c === "[") {
      inClass = true;
      piece = translateClassOpening(rest, i);
    } else {
      piece = translateOutsideClass(source, rest, i);
    }
    out += piece.text;
    i = piece.last;
  }
  return out;
}

/** A piece of a regex in JavaScript's syntax, and the index of the last character of the RE2 it replaces. */
interface Translated {
  text: string;
  last: number;
}

/** The error for RE2-less syntax (`what`) in the regex `source`. */
function unsupported(source: string, what: string): Invalid {
  return new Invalid(
    `the regex ${JSON.stringify(source)} uses ${what}, which Prometheus's regexes (RE2) do not have`,
  );
}

/** The escape at `rest[i]` (a backslash with a character after it), in a class or not. */
function translateEscape(
  source: string,
  rest: string,
  i: number,
  inClass: boolean,
  multiline: boolean,
): Translated {
  const next = rest[i + 1] as string;
  if (/[0-9]/.test(next)) throw unsupported(source, "a backreference or an octal escape");
  if (next === "p" || next === "P") {
    // `\pL` is `\p{L}` in JavaScript.
    const letter = rest[i + 2];
    if (letter !== undefined && /[A-Za-z]/.test(letter)) return { text: `\\${next}{${letter}}`, last: i + 2 };
  }
  const wide = next === "x" ? /^\{[0-9A-Fa-f]{1,6}\}/.exec(rest.slice(i + 2)) : null;
  if (wide) return { text: `\\u${wide[0]}`, last: i + 1 + wide[0].length };
  if (!inClass && !multiline && (next === "A" || next === "z")) {
    return { text: next === "A" ? "^" : "$", last: i + 1 };
  }
  // JavaScript's `u` mode rejects escaped punctuation it does not know (`\-` outside a class, `\_`).
  const punctuation = next < "\x80" && !/[A-Za-z0-9]/.test(next);
  const bare = punctuation && !JS_ESCAPABLE.has(next) && !(inClass && next === "-");
  return { text: bare ? next : `\\${next}`, last: i + 1 };
}

/** The character at `rest[i]` inside a class (not an escape): a POSIX class (`[:alpha:]`) or itself. */
function translateInClass(source: string, rest: string, i: number): Translated {
  const posix = rest[i] === "[" ? /^\[:(\^?)([a-z]+):\]/.exec(rest.slice(i)) : null;
  if (!posix) return { text: rest[i] as string, last: i };
  const ranges = Object.hasOwn(POSIX_CLASSES, posix[2] as string)
    ? POSIX_CLASSES[posix[2] as string]
    : undefined;
  if (ranges === undefined || posix[1] === "^") {
    throw new Invalid(`the regex ${JSON.stringify(source)} has ${posix[0]}, not supported here`);
  }
  return { text: ranges, last: i + posix[0].length - 1 };
}

/** The `[` at `rest[i]` that opens a class, with its `^` if any. */
function translateClassOpening(rest: string, i: number): Translated {
  let text = "[";
  let last = i;
  if (rest[last + 1] === "^") {
    text += "^";
    last++;
  }
  // RE2 reads a `]` first in a class as itself; JavaScript as the end of an empty class.
  if (rest[last + 1] === "]") {
    text += "\\]";
    last++;
  }
  return { text, last };
}

/** The character at `rest[i]` outside a class (not an escape, not a `[`): a group's opening, a brace, itself. */
function translateOutsideClass(source: string, rest: string, i: number): Translated {
  const c = rest[i] as string;
  if (c === "(" && rest[i + 1] === "?") {
    if (/^\(\?(?:=|!|<=|<!)/.test(rest.slice(i))) throw unsupported(source, "lookaround");
    if (rest.startsWith("(?P<", i)) return { text: "(?<", last: i + 3 };
    // `s` is on everywhere already.
    if (rest.startsWith("(?s:", i)) return { text: "(?:", last: i + 3 };
  }
  if (c === "{") {
    // RE2 reads a `{` that does not start a repetition as itself; JavaScript's `u` mode rejects it.
    const repeat = /^\{\d+(?:,\d*)?\}/.exec(rest.slice(i));
    return repeat ? { text: repeat[0], last: i + repeat[0].length - 1 } : { text: "\\{", last: i };
  }
  return { text: c === "}" || c === "]" ? `\\${c}` : c, last: i };
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
      return compiled(matcher).test(value);
    case "!~":
      return !compiled(matcher).test(value);
  }
}

function compiled(matcher: LabelMatcher): RegExp {
  try {
    return regexOf(matcher);
  } catch (error) {
    throw error instanceof Invalid
      ? new SelectorError(`${matcher.name}${matcher.type}: ${error.message}`)
      : error;
  }
}
