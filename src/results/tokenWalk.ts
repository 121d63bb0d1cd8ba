// The token estimator's compiled walk: the states `step` reaches, numbered, with each state's and input's
// next state and prices packed in one transition; built on first use, not at import (bench case cold-start).

import { JSON_LITERAL_EXTRA, JSON_LITERAL_HASHES, knownWordTable } from "./knownWords.js";
import { type PriceTables, priceTables, START_SURCHARGE, UNIT } from "./tokenPrices.js";
import {
  CLASS_OF,
  CLASSES,
  COLON,
  COMMA,
  isLetter,
  LETTERS,
  NON_ASCII_STATE,
  OPEN_BRACKET,
  QUOTE,
  QUOTED_COMMA,
  SEPARATOR,
  SLASH,
  START_STATE,
  STATE_BITS,
  STATE_MASK,
  step,
} from "./tokenStates.js";

// --- The compiled walk -------------------------------------------------------------------------------------
// `step` says what each character costs; walking a text looks it up instead. The states `step` can reach are
// numbered, and for each state and input (a class, with 0 apart from the other digits) `walk.transitions`
// holds the next state's number and both prices.
const ZERO_INPUT = CLASSES;
const INPUTS = CLASSES + 1;
const NEXT_BITS = 12;
const NEXT_MASK = (1 << NEXT_BITS) - 1;
const PRICE_MASK = 511;
const O200K_SHIFT = NEXT_BITS;
const CLAUDE_SHIFT = NEXT_BITS + 9;
/** Set when the character is a letter after a letter of the same word. */
const IN_WORD_FLAG = 1 << 30;

/** The walk's transitions, and what it reads beside them. */
function compileWalk(prices: PriceTables) {
  const INPUT_OF = new Uint8Array(128);
  /** A character of each input, to feed `step` with. */
  const SAMPLE = new Uint8Array(INPUTS);
  for (let code = 127; code >= 0; code--) {
    INPUT_OF[code] = code === 48 ? ZERO_INPUT : (CLASS_OF[code] as number);
    SAMPLE[INPUT_OF[code] as number] = code;
  }
  const { transitions, stateList, startNumber, nonAsciiNumber } = compileTransitions(prices, SAMPLE);
  /**
   * Per state: 1 if the last character was a quote, 2 a separator or slash (a known word may start), 3
   * JSON's punctuation before a value (a JSON literal may start, see JSON_LITERALS).
   */
  const BEFORE_WORD = Uint8Array.from(stateList, (state) => {
    const prev = state & 31;
    if (prev === QUOTE) return 1;
    if (prev === SEPARATOR || prev === SLASH) return 2;
    return prev === COMMA || prev === QUOTED_COMMA || prev === COLON || prev === OPEN_BRACKET ? 3 : 0;
  });
  const IS_LETTER = Uint8Array.from(INPUT_OF, (input) => (isLetter(input) ? 1 : 0));
  /**
   * What the walks read, for them to copy into locals: bundlers turn module constants into variables, which
   * a loop would reload at every character.
   */
  const walk = {
    transitions,
    inputOf: INPUT_OF,
    beforeWord: BEFORE_WORD,
    letterCode: IS_LETTER,
    inputs: INPUTS,
    claudeShift: CLAUDE_SHIFT,
    o200kShift: O200K_SHIFT,
    priceMask: PRICE_MASK,
    nextMask: NEXT_MASK,
    inWordFlag: IN_WORD_FLAG,
  } as const;
  return { walk, startNumber, nonAsciiNumber };
}

/**
 * Numbers the states `step` reaches from the start and from non-ASCII (those two first), and for each state
 * and input (fed as its `sample` character) packs the next state's number and both prices into its
 * transition.
 */
function compileTransitions(prices: PriceTables, sample: Uint8Array) {
  const stateNumbers = new Map<number, number>();
  const stateList: number[] = [];
  const numberOf = (state: number) => {
    let number = stateNumbers.get(state);
    if (number === undefined) {
      number = stateList.length;
      stateNumbers.set(state, number);
      stateList.push(state);
    }
    return number;
  };
  const startNumber = numberOf(START_STATE);
  const nonAsciiNumber = numberOf(NON_ASCII_STATE);
  const transitions: number[] = [];
  for (let number = 0; number < stateList.length; number++) {
    for (let input = 0; input < INPUTS; input++) {
      const next = step(stateList[number] as number, sample[input] as number);
      const index = next >>> STATE_BITS;
      transitions[number * INPUTS + input] =
        numberOf(next & STATE_MASK) |
        ((prices.o200k[index] as number) << O200K_SHIFT) |
        ((prices.claude[index] as number) << CLAUDE_SHIFT) |
        (index >= LETTERS ? IN_WORD_FLAG : 0);
    }
  }
  if (stateList.length > 1 << NEXT_BITS) throw new Error("tokens: too many states to compile");
  return { transitions: Int32Array.from(transitions), stateList, startNumber, nonAsciiNumber };
}

/**
 * The price tables, the known words and the walk's transitions, built on first use rather than at
 * import: work a cold start would pay (bench case cold-start) even for answers that need no estimate.
 */
function compile() {
  const { walk, startNumber, nonAsciiNumber } = compileWalk(priceTables());
  const { knownSlot, knownExtraTable } = knownWordTable();
  return { walk, knownSlot, knownExtraTable, startNumber, nonAsciiNumber };
}

let compiled: ReturnType<typeof compile> | undefined;

/** The compiled tables. */
export function tables(): ReturnType<typeof compile> {
  compiled ??= compile();
  return compiled;
}

/**
 * The extra tokens of the known word of this hash (see KNOWN_WORDS), in 1/64 token: Claude's in bits 0-15,
 * o200k's in bits 16-31; or -1 for a word that is not known.
 */
export function knownExtra(hash: number, before: number): number {
  if (before === 3) return JSON_LITERAL_HASHES.has(hash) ? JSON_LITERAL_EXTRA : -1;
  const afterQuote = before === 1;
  const { knownSlot, knownExtraTable } = tables();
  const slot = knownSlot(hash);
  if (slot < 0) return -1;
  const extra = knownExtraTable[slot] as number;
  const o200k = afterQuote ? (extra >>> 4) & 15 : extra >>> 8;
  return (extra & 15) * UNIT + o200k * UNIT * 65536;
}

/**
 * A known word costs its first letter and its extra tokens, or at most START_SURCHARGE more than its
 * letters did (what a piece cut out of it, or beginning with what ended it, pays more than in the whole):
 * the price of its letters after the first, given what they were priced.
 */
export const knownPrice = (extra: number, priced: number) => Math.min(extra, priced + START_SURCHARGE * UNIT);
