import type { Progress } from "../progress.js";
import { formatCount } from "../util/text.js";
import { estimateTokens, TokenTally } from "./tokens.js";

export { formatCount };

/** What a piece of a result's text costs: its estimated tokens (see ./tokens.ts) and its UTF-8 bytes. */
export interface Cost {
  tokens: number;
  bytes: number;
}

/**
 * What one tool result may cost: `tokens`, the model's budget (MAX_RESULT_TOKENS), and `bytes`, the
 * text's share of the Lambda response (and MAX_RESULT_BYTES when set).
 */
export type Budget = Cost;

/** How the result's text is laid out: compact JSON, or indented by `indent` spaces (PYTHON_COMPAT). */
export interface Layout {
  indent?: number | undefined;
}

/**
 * A tool result that may be too large to return whole, and can cut itself to a budget.
 *
 * @example
 * ```ts
 * const answer = await tool.run(args, call); // a Fittable for the query tools
 * const { value } = await answer.fit({ tokens: 20_000, bytes: 1_000_000 }, {});
 * // value: the result, or the result cut to fit with `truncated` (its note first) and, for a query, `series_stats`
 * ```
 */
export interface Fittable {
  /**
   * The result as it is when it fits the budget; else cut to fit it, its first key `truncated`. The
   * cut is measured piece by piece with the estimator, so the caller checks the whole text and asks
   * again with less if it is over. Can be called again: each call starts from everything read.
   * `progress`, when the caller asked to be told, hears when cutting begins.
   */
  fit(budget: Budget, layout: Layout, progress?: Progress): Promise<Fitted>;
}

export interface Fitted {
  value: Record<string, unknown>;
  /**
   * Plain words for the model about a whole result that may not be what it wanted (one that matched
   * nothing): what to check. Never on a cut result; given only if it fits in the budget.
   */
  hint?: string | undefined;
}

export function isFittable(result: unknown): result is Fittable {
  return typeof (result as Partial<Fittable> | null)?.fit === "function";
}

/**
 * What a cut result says in `truncated`, its first key: the note first (a client that trims the text
 * from the end keeps it), then the totals, what was returned, and why and how it was cut.
 */
export interface Truncation {
  /** Plain words: what was cut, the totals, and the next step. */
  note: string;
  /** `limit`: the call's `limit` argument; `size`: the budget (MAX_RESULT_TOKENS, or the response's share). */
  cut_by: "limit" | "size";
  /** What Prometheus answered: `bytes` is the size of its whole answer as received. */
  total: Record<string, number>;
  /** What this result holds. */
  returned: Record<string, number>;
  /** Which elements come first, and so were kept when some had to go. */
  order: string;
  [extra: string]: unknown;
}

/** The cost of a text: its estimated tokens and its UTF-8 bytes. */
export function costOfText(text: string): Cost {
  return { tokens: estimateTokens(text), bytes: Buffer.byteLength(text, "utf8") };
}

export function addCost(a: Cost, b: Cost): Cost {
  return { tokens: a.tokens + b.tokens, bytes: a.bytes + b.bytes };
}

export function fitsIn(cost: Cost, budget: Budget): boolean {
  return cost.tokens <= budget.tokens && cost.bytes <= budget.bytes;
}

/** The budget less a cost (never below zero). */
export function less(budget: Budget, cost: Cost): Budget {
  return { tokens: Math.max(0, budget.tokens - cost.tokens), bytes: Math.max(0, budget.bytes - cost.bytes) };
}

export const NO_COST: Cost = { tokens: 0, bytes: 0 };

/**
 * Measures a result as it will be written in its layout, in pieces: the whole of a value, or the
 * elements of an array `depth` levels down written one after another (a Sequence). A sequence is
 * priced as one text (see TokenTally), so its running total is what those elements cost together,
 * separators and (indented) line breaks included; the whole result costs at most what its pieces add up
 * to (the estimate is subadditive), and the SEQUENCE_MARGIN of each sequence covers where it joins the
 * rest.
 */
export class Measure {
  private readonly indent: number;

  constructor(layout: Layout) {
    this.indent = layout.indent ?? 0;
  }

  /** The whole value, written at the top level. */
  of(value: unknown): Cost {
    return costOfText(this.whole(value));
  }

  /** The whole text of a value in this layout. */
  whole(value: unknown): string {
    return JSON.stringify(value, null, this.indent || undefined) ?? "null";
  }

  /** Elements of an array at `depth`, to be written one after another. */
  sequence(depth: number): Sequence {
    return new Sequence(this, this.indent > 0 ? `\n${" ".repeat(depth * this.indent)}` : "");
  }

  /** The running totals of writing `values` as a sequence at `depth`: entry k is what the first k + 1 cost. */
  totals(values: readonly unknown[], depth: number): Cost[] {
    const sequence = this.sequence(depth);
    return values.map((value) => sequence.add(value));
  }
}

/**
 * Tokens a sequence may cost more where it joins the rest of the result than on its own: the surcharge
 * of its first character (the estimator's START_SURCHARGE) and the brackets around it.
 */
const SEQUENCE_MARGIN = 6;

/** Elements written one after another (see Measure.sequence); `add` gives the running total. */
export class Sequence {
  private readonly tally = new TokenTally();
  private bytes = 0;

  constructor(
    private readonly measure: Measure,
    /** Indented, each element starts a line this deep. */
    private readonly margin: string,
  ) {}

  /** Writes the next element; the cost of all written so far. */
  add(value: unknown): Cost {
    const text = this.measure.whole(value);
    const piece = this.margin === "" ? `,${text}` : `,${this.margin}${text.replaceAll("\n", this.margin)}`;
    this.tally.text(piece);
    this.bytes += Buffer.byteLength(piece, "utf8");
    return { tokens: this.tally.tokens + SEQUENCE_MARGIN, bytes: this.bytes };
  }
}

/**
 * The budget in a note's words: its tokens, and the reply's share of the response too where that is
 * what binds (a batch sharing the response; JSON takes 2 to 3 bytes a token).
 */
export function budgetWords(budget: Budget): string {
  const tokens = `${formatCount(budget.tokens)}-token budget`;
  return budget.bytes < 3 * budget.tokens
    ? `${tokens} (and this reply's ${formatCount(budget.bytes)} bytes)`
    : tokens;
}

/** How many of the first entries fit in `room`, given the running totals of writing them (Measure.totals). */
export function prefixThatFits(totals: readonly Cost[], room: Budget): number {
  let count = 0;
  while (count < totals.length && fitsIn(totals[count] as Cost, room)) count++;
  return count;
}
