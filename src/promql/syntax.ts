/**
 * Reading a PromQL syntax tree (`@prometheus-io/lezer-promql`): which nodes are expressions, what an
 * expression's value type is, its parts (arguments, grouping labels, binary operands), and its source
 * text, sliced or spliced by node positions so that a rewrite keeps the caller's text verbatim.
 */

import { memoize } from "../util/memoize.js";

export type PromqlModule = typeof import("@prometheus-io/lezer-promql");
export type SyntaxNode = ReturnType<PromqlModule["parser"]["parse"]>["topNode"];

// The parser is large (mostly tables): load it only when it is needed (an answer cut or empty, a filter to
// parse), never on cold start (bench cases cold-start, and zip-size, whose note gives what loads at init).
// A failure to load is not kept: a later call tries again.
export const loadPromql: () => Promise<PromqlModule> = memoize(() => import("@prometheus-io/lezer-promql"), {
  onRejection: "retry",
});

const EXPR_NODES = new Set([
  "AggregateExpr",
  "BinaryExpr",
  "FunctionCall",
  "MatrixSelector",
  "NumberDurationLiteral",
  "OffsetExpr",
  "AnchoredExpr",
  "SmoothedExpr",
  "ParenExpr",
  "StringLiteral",
  "SubqueryExpr",
  "UnaryExpr",
  "VectorSelector",
  "StepInvariantExpr",
]);

// Wrappers that leave a vector's values and labels alone (or negate them): look through them.
export const TRANSPARENT_NODES = new Set([
  "ParenExpr",
  "OffsetExpr",
  "StepInvariantExpr",
  "SmoothedExpr",
  "AnchoredExpr",
  "UnaryExpr",
]);

/** The query's expression, or undefined when the parser had to recover from anything. */
export function parseClean(parser: PromqlModule["parser"], query: string): SyntaxNode | undefined {
  const tree = parser.parse(query);
  let clean = true;
  tree.iterate({
    enter: (node) => {
      if (node.type.isError) clean = false;
      // The grammar accepts an unterminated string; rewriting around one would produce garbage.
      if (node.name === "StringLiteral" && !isTerminatedString(query.slice(node.from, node.to)))
        clean = false;
      return clean;
    },
  });
  if (!clean) return undefined;
  const exprs = exprChildren(tree.topNode);
  return exprs.length === 1 ? exprs[0] : undefined;
}

function isTerminatedString(literal: string): boolean {
  const quote = literal[0];
  if (literal.length < 2 || literal[literal.length - 1] !== quote) return false;
  if (quote === "`") return true;
  let backslashes = 0;
  for (let i = literal.length - 2; i > 0 && literal[i] === "\\"; i--) backslashes++;
  return backslashes % 2 === 0;
}

export function children(node: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let c = node.firstChild; c; c = c.nextSibling) if (c.name !== "LineComment") out.push(c);
  return out;
}

function exprChildren(node: SyntaxNode): SyntaxNode[] {
  return children(node).filter((c) => EXPR_NODES.has(c.name));
}

export function child(node: SyntaxNode, name: string): SyntaxNode | undefined {
  return children(node).find((c) => c.name === name);
}

export function firstExpr(node: SyntaxNode): SyntaxNode | undefined {
  return exprChildren(node)[0];
}

export function unparen(node: SyntaxNode): SyntaxNode {
  let n = node;
  for (let inner = firstExpr(n); n.name === "ParenExpr" && inner; inner = firstExpr(n)) n = inner;
  return n;
}

export function text(src: string, node: SyntaxNode): string {
  return src.slice(node.from, node.to);
}

/** `node`'s source text with some of its descendants' ranges replaced. */
export function splice(
  src: string,
  node: SyntaxNode,
  edits: ReadonlyArray<{ node: SyntaxNode; text: string }>,
): string {
  let out = "";
  let at = node.from;
  for (const edit of [...edits].sort((a, b) => a.node.from - b.node.from)) {
    out += src.slice(at, edit.node.from) + edit.text;
    at = edit.node.to;
  }
  return out + src.slice(at, node.to);
}

export function functionName(call: SyntaxNode): string {
  return child(call, "FunctionIdentifier")?.firstChild?.name ?? "";
}

export function args(node: SyntaxNode): SyntaxNode[] {
  const body = child(node, "FunctionCallBody");
  return body ? exprChildren(body) : [];
}

export function aggregationOp(agg: SyntaxNode): string {
  return child(agg, "AggregateOp")?.firstChild?.name ?? "";
}

/** The aggregation's `by` labels (name and source text), or undefined for `without` or no modifier. */
export function byLabels(src: string, agg: SyntaxNode): { list: SyntaxNode; labels: Label[] } | undefined {
  const modifier = child(agg, "AggregateModifier");
  const list = modifier && child(modifier, "GroupingLabels");
  if (!modifier || !list || !child(modifier, "By")) return undefined;
  const labels = children(list).map((l) => ({ name: labelNameOf(src, l), token: text(src, l) }));
  return { list, labels };
}

export interface Label {
  name: string;
  token: string;
}

export function labelNameOf(src: string, node: SyntaxNode): string {
  return node.name === "QuotedLabelName" ? unquote(text(src, node)) : text(src, node);
}

/** A string literal's value (`"a\\"b"` → `a"b`). */
export function stringValueOf(src: string, node: SyntaxNode): string {
  return unquote(text(src, node));
}

function unquote(literal: string): string {
  const body = literal.slice(1, -1);
  if (literal.startsWith("`")) return body;
  try {
    return JSON.parse(`"${literal.startsWith("'") ? body.replace(/\\'/g, "'").replace(/"/g, '\\"') : body}"`);
  } catch {
    return body; // Go-only escapes such as \x41: close enough for comparing label names
  }
}

/** A label name as PromQL accepts it: bare when it can be, quoted (Prometheus 3 UTF-8 names) otherwise. */
export function labelToken(name: string): string {
  return /^[a-zA-Z_][a-zA-Z0-9_]*$/.test(name) ? name : JSON.stringify(name);
}

type ValueType = "vector" | "matrix" | "scalar" | "string";

const SCALAR_FUNCTIONS = new Set(["Scalar", "Time", "Pi", "StartFn", "EndFn", "Range", "Step"]);

export function valueType(node: SyntaxNode): ValueType {
  switch (node.name) {
    case "NumberDurationLiteral":
      return "scalar";
    case "StringLiteral":
      return "string";
    case "MatrixSelector":
    case "SubqueryExpr":
      return "matrix";
    case "FunctionCall":
      return SCALAR_FUNCTIONS.has(functionName(node)) ? "scalar" : "vector";
    case "BinaryExpr": {
      const b = binary(node);
      return b && valueType(b.left) === "scalar" && valueType(b.right) === "scalar" ? "scalar" : "vector";
    }
    default: {
      const inner = TRANSPARENT_NODES.has(node.name) ? firstExpr(node) : undefined;
      return inner ? valueType(inner) : "vector";
    }
  }
}

export interface Binary {
  left: SyntaxNode;
  right: SyntaxNode;
  op: string;
  bool: boolean;
  /** `on`/`ignoring`/`group_*`/`fill*`: the two sides are not matched one to one. */
  matching: boolean;
}

export const ARITHMETIC = new Set(["Add", "Sub", "Mul", "Div", "Mod", "Pow", "Atan2"]);
export const COMPARISON = new Set(["Eql", "Neq", "Gtr", "Lss", "Gte", "Lte"]);
export const SET_OPERATORS = new Set(["And", "Or", "Unless"]);

export function binary(node: SyntaxNode): Binary | undefined {
  if (node.name !== "BinaryExpr") return undefined;
  const kids = children(node);
  const exprs = kids.filter((c) => EXPR_NODES.has(c.name));
  const op = kids.find((c) => ARITHMETIC.has(c.name) || COMPARISON.has(c.name) || SET_OPERATORS.has(c.name));
  const [left, right] = exprs;
  if (!left || !right || exprs.length !== 2 || !op) return undefined;
  return {
    left,
    right,
    op: op.name,
    bool: kids.some((c) => c.name === "BoolModifier"),
    matching: kids.some((c) => c.name === "MatchingModifierClause" || c.name === "FillModifier"),
  };
}

export function isFilter(node: SyntaxNode): boolean {
  const b = binary(node);
  return b !== undefined && COMPARISON.has(b.op) && !b.bool;
}
