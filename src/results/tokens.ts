/**
 * A cheap upper bound on the tokens a text costs a model, for cutting tool results to a token budget
 * without running a tokenizer (cold start and bundle size on Lambda).
 *
 * Calibrated against Claude's tokenizer (`@anthropic-ai/tokenizer`) and OpenAI's `o200k_base` on the texts
 * this server emits (test/support/resultTexts.ts): on those the estimate is at least the larger of the two
 * counts, and close to it (test/property/tokens.test.ts; test/bench/tokenCalibration.ts prints the ratios).
 *
 * How: both tokenizers are byte-level BPEs that first cut text into pieces (runs of letters, of digits, of
 * punctuation, of whitespace, each with its own rules) and then merge bytes inside each piece. One walk over
 * the text prices each character for each tokenizer: about a token where that tokenizer starts a piece, a
 * fraction inside a run (by the run's kind and position: digit runs split every few digits, hashes and
 * vowel-less runs often, English words seldom), nothing where the vocabulary merges (`","`, `":"`, a space
 * before a word); words that every series repeats (`"namespace"`, `_bytes`) cost exactly what they take.
 * Prices are in 1/64 token; the estimate is the larger of the two sums, rounded up.
 *
 * The sum of the pieces bounds the whole (`estimateTokens(a + b) <= estimateTokens(a) + estimateTokens(b)`):
 * a character's price depends only on what precedes it, and a text's first character is priced as if it
 * could follow anything (the most any context makes it cost, plus START_SURCHARGE), with the run it begins
 * of unknown position and kind (the most those make each of its characters cost). Cutting a text only ever
 * replaces a known context with that worst case; the larger of two such sums keeps the property.
 *
 * Prices were measured (how often each tokenizer starts a token there, in a calibration corpus of 12,000
 * texts from test/support/resultTexts.ts), then raised where that corpus needed it to stay above both counts
 * by 1% on every text of 100+ tokens, none above the highest rate a kind of text shows plus 0.1 (o200k) or
 * 0.15 (Claude) token: a linear program, whose figures are in the tables; a second corpus of 12,000 texts
 * and 26,000 random ones checked the result (none above 0.991 of the estimate). A few were raised by hand
 * for random label values: after non-ASCII, and the 3rd+ consonant of a vowel-less run. Then Claude's
 * letters inside words were raised to a safety floor (UNKNOWN_WORD_LETTER) for words neither corpus has:
 * uncommon names and values (test/support/uncommonTexts.ts, the bench's large catalogues).
 *
 * This module is the walk and its API; its parts: tokenStates.ts (the classes and \`step\`), tokenPrices.ts
 * (the tables), knownWords.ts (the words priced exactly), tokenWalk.ts (the compiled transitions).
 */

import { hashStep, WORD_SEED } from "./knownWords.js";
import { UNIT } from "./tokenPrices.js";
import { knownExtra, knownPrice, tables } from "./tokenWalk.js";

/**
 * An upper bound on the tokens `text` costs Claude's tokenizer and o200k, for the texts this server emits
 * (JSON of query results, metric lists, notes). Subadditive: the estimate of a text is at most the sum of
 * the estimates of any pieces it is cut into. A non-ASCII character counts one token per UTF-8 byte, a lone
 * surrogate 3 (as U+FFFD, which TextEncoder writes for it), so that {@link estimateTokensOfBytes} agrees.
 * Not bounded: the ~250 compatibility characters that Claude's NFKC normalization expands into more tokens
 * than they have bytes (`½`, `㍻`, `ﷺ`), and texts unlike these (random letter soup, pages of hashes).
 *
 * @example
 * ```ts
 * estimateTokens('{"resultType":"vector","result":[]}'); // 14 (Claude: 9, o200k: 9; START_SURCHARGE is 3)
 * ```
 */
export function estimateTokens(text: string): number {
  return new TokenTally().text(text).tokens;
}

/**
 * {@link estimateTokens} of UTF-8 bytes (`bytes[start…end)`), without decoding them: the same number as for
 * the string they encode (for any string's encoding; bytes that are not UTF-8 count one token each).
 *
 * @example
 * ```ts
 * const body = new Uint8Array(await response.arrayBuffer());
 * estimateTokensOfBytes(body); // === estimateTokens(new TextDecoder().decode(body)) for valid UTF-8
 * ```
 */
export function estimateTokensOfBytes(bytes: Uint8Array, start = 0, end = bytes.length): number {
  return new TokenTally().bytes(bytes, start, end).tokens;
}

/**
 * The estimate of a text written piece after piece: each piece is priced in the context the ones before
 * it left, as in the whole text, so `tokens` after each piece is the estimate of everything so far, exactly
 * (where summing each piece's own estimate would pay every piece's START_SURCHARGE again).
 *
 * @example
 * ```ts
 * const tally = new TokenTally();
 * const totals = rows.map((row) => tally.text(`,${JSON.stringify(row)}`).tokens);
 * // totals[k]: the estimate of the first k + 1 rows, joined
 * ```
 */
export class TokenTally {
  private state = tables().startNumber;
  private claude = 0;
  private o200k = 0;
  /** The hash of the current letter run if it began where a known word may (see BEFORE_WORD), else 0. */
  private word = 0;
  /** What came before the current word: BEFORE_WORD's value. */
  private before = 0;
  /** The prices of the current word's letters after its first. */
  private wordClaude = 0;
  private wordO200k = 0;

  /** The estimate of everything written so far. */
  get tokens(): number {
    return Math.ceil(Math.max(this.claude, this.o200k) / UNIT);
  }

  /** Writes a string. */
  text(text: string): this {
    const {
      transitions,
      inputOf,
      beforeWord,
      letterCode,
      inputs,
      claudeShift,
      o200kShift,
      priceMask,
      nextMask,
      inWordFlag,
    } = tables().walk;
    const { nonAsciiNumber } = tables();
    let { state, claude, o200k, word, before: wordBefore, wordClaude, wordO200k } = this;
    const length = text.length;
    for (let i = 0; i < length; i++) {
      const code = text.charCodeAt(i);
      if (code < 128) {
        const transition = transitions[state * inputs + (inputOf[code] as number)] as number;
        const claudePrice = (transition >>> claudeShift) & priceMask;
        const o200kPrice = (transition >>> o200kShift) & priceMask;
        claude += claudePrice;
        o200k += o200kPrice;
        if (word !== 0) {
          if ((transition & inWordFlag) !== 0) {
            word = hashStep(word, code);
            wordClaude += claudePrice;
            wordO200k += o200kPrice;
            state = transition & nextMask;
            continue;
          }
          // The word ended (at a character: at the end of the text it could go on in the next piece).
          const extra = knownExtra(word, wordBefore);
          if (extra >= 0) {
            claude += knownPrice(extra & 65535, wordClaude) - wordClaude;
            o200k += knownPrice(extra >>> 16, wordO200k) - wordO200k;
          }
          word = 0;
        }
        const before = beforeWord[state] as number;
        if (before !== 0 && letterCode[code] === 1) {
          word = hashStep(WORD_SEED, code);
          wordBefore = before;
          wordClaude = 0;
          wordO200k = 0;
        }
        state = transition & nextMask;
        continue;
      }
      // One token a UTF-8 byte (a lone surrogate: 3, as U+FFFD).
      let bytes = code < 0x800 ? 2 : 3;
      if (code >= 0xd800 && code < 0xdc00 && i + 1 < length) {
        const low = text.charCodeAt(i + 1);
        if (low >= 0xdc00 && low < 0xe000) {
          bytes = 4;
          i++;
        }
      }
      claude += bytes * UNIT;
      o200k += bytes * UNIT;
      state = nonAsciiNumber;
      word = 0;
    }
    Object.assign(this, { state, claude, o200k, word, before: wordBefore, wordClaude, wordO200k });
    return this;
  }

  /** Writes UTF-8 bytes, `bytes[start…end)`: the same as writing the string they encode. */
  bytes(bytes: Uint8Array, start = 0, end = bytes.length): this {
    // The same walk as text()'s, over bytes: each byte of a non-ASCII character is a token.
    const {
      transitions,
      inputOf,
      beforeWord,
      letterCode,
      inputs,
      claudeShift,
      o200kShift,
      priceMask,
      nextMask,
      inWordFlag,
    } = tables().walk;
    const { nonAsciiNumber } = tables();
    let { state, claude, o200k, word, before: wordBefore, wordClaude, wordO200k } = this;
    for (let i = start; i < end; i++) {
      const code = bytes[i] as number;
      if (code < 128) {
        const transition = transitions[state * inputs + (inputOf[code] as number)] as number;
        const claudePrice = (transition >>> claudeShift) & priceMask;
        const o200kPrice = (transition >>> o200kShift) & priceMask;
        claude += claudePrice;
        o200k += o200kPrice;
        if (word !== 0) {
          if ((transition & inWordFlag) !== 0) {
            word = hashStep(word, code);
            wordClaude += claudePrice;
            wordO200k += o200kPrice;
            state = transition & nextMask;
            continue;
          }
          const extra = knownExtra(word, wordBefore);
          if (extra >= 0) {
            claude += knownPrice(extra & 65535, wordClaude) - wordClaude;
            o200k += knownPrice(extra >>> 16, wordO200k) - wordO200k;
          }
          word = 0;
        }
        const before = beforeWord[state] as number;
        if (before !== 0 && letterCode[code] === 1) {
          word = hashStep(WORD_SEED, code);
          wordBefore = before;
          wordClaude = 0;
          wordO200k = 0;
        }
        state = transition & nextMask;
        continue;
      }
      claude += UNIT;
      o200k += UNIT;
      state = nonAsciiNumber;
      word = 0;
    }
    Object.assign(this, { state, claude, o200k, word, before: wordBefore, wordClaude, wordO200k });
    return this;
  }
}
