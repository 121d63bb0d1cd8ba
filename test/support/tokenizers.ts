/**
 * The two real tokenizers the token estimator (src/results/tokens.ts) is calibrated against, for tests and
 * the calibration script. Both are built once, on first use, and kept: building Claude's takes a WASM
 * instance and a 1 MB rank table, o200k's a 4 MB one.
 *
 * @example
 * ```ts
 * const { claude, o200k } = realTokens('{"resultType":"vector","result":[]}');
 * ```
 */
import { getTokenizer } from "@anthropic-ai/tokenizer";
import { getEncoding, type Tiktoken as JsTiktoken } from "js-tiktoken";

type ClaudeTokenizer = ReturnType<typeof getTokenizer>;

let claudeTokenizer: ClaudeTokenizer | undefined;
let o200kEncoding: JsTiktoken | undefined;

/** Claude's count as `countTokens` makes it (NFKC first, special tokens allowed), without freeing the tokenizer. */
export function claudeTokens(text: string): number {
  claudeTokenizer ??= getTokenizer();
  return claudeTokenizer.encode(text.normalize("NFKC"), "all").length;
}

/** o200k_base's count; special-token names in the text are counted as ordinary text rather than refused. */
export function o200kTokens(text: string): number {
  o200kEncoding ??= getEncoding("o200k_base");
  return o200kEncoding.encode(text, [], []).length;
}

/** Both counts of one text. */
export function realTokens(text: string): { claude: number; o200k: number } {
  return { claude: claudeTokens(text), o200k: o200kTokens(text) };
}

/** The larger of the two counts: what a safe estimate must reach. */
export function maxRealTokens(text: string): number {
  const { claude, o200k } = realTokens(text);
  return Math.max(claude, o200k);
}
