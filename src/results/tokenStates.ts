// The token estimator's alphabet and its one step (see tokens.ts for the whole design): the character
// classes, where each price sits in the price tables (PAIRS, RUNS, LETTERS, CAMEL…), the state carried from
// one character to the next, and `step`, which says for a character after a state where its prices are.

// Character classes (ASCII). Non-ASCII characters are priced by their UTF-8 bytes, outside the classes.
export const DIGIT = 0;
export const VOWEL = 1; // a e i o u
export const CONSONANT = 2; // other lower-case letters
export const UPPER = 3;
export const SPACE = 4;
export const BREAK = 5; // \n \r \t
export const QUOTE = 6;
export const COMMA = 7;
export const COLON = 8;
export const OPEN_BRACKET = 9; // [ (
export const CLOSE_BRACKET = 10; // ] )
export const OPEN_BRACE = 11;
export const CLOSE_BRACE = 12;
export const SEPARATOR = 13; // . - _ (inside names and addresses)
export const SLASH = 14;
export const OTHER = 15; // other punctuation, and control characters
export const CLASSES = 16;
// What can precede a character besides a class.
export const NON_ASCII = 16;
export const INDENT = 17; // 2+ spaces, or spaces after a line break
export const QUOTED_COMMA = 18; // a comma in a run of punctuation that began with a quote (`"],[`)
export const START = 19;
export const STATES = 20;

export const CLASS_OF = new Uint8Array(128).fill(OTHER);
for (const [chars, cls] of [
  ["0123456789", DIGIT],
  ["aeiou", VOWEL],
  ["bcdfghjklmnpqrstvwxyz", CONSONANT],
  ["ABCDEFGHIJKLMNOPQRSTUVWXYZ", UPPER],
  [" ", SPACE],
  ["\n\r\t", BREAK],
  ['"', QUOTE],
  [",", COMMA],
  [":", COLON],
  ["[(", OPEN_BRACKET],
  ["])", CLOSE_BRACKET],
  ["{", OPEN_BRACE],
  ["}", CLOSE_BRACE],
  [".-_", SEPARATOR],
  ["/", SLASH],
] as const) {
  for (const ch of chars) CLASS_OF[ch.charCodeAt(0)] = cls;
}
export const isLetter = (cls: number) => cls === VOWEL || cls === CONSONANT || cls === UPPER;
const isJson = (cls: number) => (cls >= QUOTE && cls <= CLOSE_BRACE) || cls === QUOTED_COMMA;

// Every price is looked up in CLAUDE and O200K at an index `step` picks: a class after a different class
// or state (PAIRS), the n-th character of a run of one class (RUNS), or a letter after a letter of the same
// word (LETTERS, by the word's context). Runs and letter rules are rows of RUN_STRIDE positions.
export const RUN_STRIDE = 32;
/** Where the run's length saturates (it cycles 28, 29, 30 from there, keeping o200k's digit triples). */
export const LAST_RUN = 30;
/** The position of a character in a run whose start is unknown (one the text begins with). */
export const UNKNOWN_RUN = 31;
const PAIRS = 0;
const RUNS = STATES * CLASSES;
/** A run row beyond the classes': a 0 after a 0 in a run of digits. */
export const ZEROS = CLASSES;
export const LETTERS = RUNS + (CLASSES + 1) * RUN_STRIDE;
// Letter rules, by the context of the word: a word (in a name or value: after a quote or a separator); a
// run of letters right after a digit (hex ids, UUIDs, pod hashes: `7d9f8b6c5`, `4fd86`), where random
// letter pairs split far more often; a word after a space (prose); and unknown (the text's first word),
// priced at the largest of the three.
export const VOWEL_AFTER_CONSONANT = 0;
export const CONSONANT_AFTER_VOWEL = 1;
export const VOWEL_AFTER_VOWEL = 2;
export const CONSONANTS = 3; // a consonant after a consonant, in a word that has had a vowel
export const LEADING_CONSONANTS = 4; // a consonant after a consonant, before any vowel (`str`, a hash's `bqxzl`)
export const LETTER_RULES = 5;
export const IN_WORD = 0;
export const IN_HASH = 1;
export const IN_UNKNOWN = 2;
/** A word after a space: prose (notes, help texts, annotations), words both tokenizers mostly know. */
export const IN_PROSE = 3;
export const CAMEL = LETTERS + 4 * LETTER_RULES * RUN_STRIDE; // upper-case after lower-case (`MemAvailable`)
export const UPPER_RUN = CAMEL + 1; // `GET`
export const AFTER_UPPER = CAMEL + 2; // `Mem`, `Inf`
export const ENTRIES = CAMEL + 3;

// --- The walk -----------------------------------------------------------------------------------------------
// The state carried from one character to the next, in an integer: bits 0-4 what precedes (a class or a
// state), 5-9 the position in the run (UNKNOWN_RUN: unknown), 10-11 the word's context, 12 a vowel seen in
// the word, 13 the run of punctuation began with a quote, 14 the character was a 0.
const RUN_SHIFT = 5;
const CONTEXT_SHIFT = 10;
const VOWEL_SEEN = 1 << 12;
const QUOTED = 1 << 13;
const ZERO = 1 << 14;
export const STATE_BITS = 15;
export const STATE_MASK = (1 << STATE_BITS) - 1;
export const START_STATE = START | (UNKNOWN_RUN << RUN_SHIFT) | (IN_UNKNOWN << CONTEXT_SHIFT) | QUOTED;
export const NON_ASCII_STATE = NON_ASCII | (1 << RUN_SHIFT);

export const pairIndex = (prev: number, cls: number) => PAIRS + prev * CLASSES + cls;
export const runRow = (cls: number) => RUNS + cls * RUN_STRIDE;
export const letterRow = (context: number, rule: number) =>
  LETTERS + (context * LETTER_RULES + rule) * RUN_STRIDE;

/** One ASCII character after `state`: the index of its prices in the high bits, the next state in the low. */
export function step(state: number, code: number): number {
  const cls = CLASS_OF[code] as number;
  const prev = state & 31;
  let run = (state >>> RUN_SHIFT) & 31;
  let context = (state >>> CONTEXT_SHIFT) & 3;
  let vowelSeen = state & VOWEL_SEEN;
  let quoted = state & QUOTED;
  let index: number;
  const inWord = isLetter(cls) && isLetter(prev);
  if (prev === START) {
    index = pairIndex(START, cls);
  } else if (cls === prev || inWord) {
    if (cls !== prev) {
      if (run !== UNKNOWN_RUN) run = 1; // a new class within a word: a new consonant run
    } else if (run !== UNKNOWN_RUN) run = run === LAST_RUN ? LAST_RUN - 2 : run + 1;
    if (!inWord)
      index = runRow(code === 48 && (state & ZERO) !== 0 && run !== UNKNOWN_RUN ? ZEROS : cls) + run;
    else if (cls === UPPER) index = prev === UPPER ? UPPER_RUN : CAMEL;
    else if (prev === UPPER) index = AFTER_UPPER;
    else if (cls === VOWEL)
      index = letterRow(context, prev === VOWEL ? VOWEL_AFTER_VOWEL : VOWEL_AFTER_CONSONANT) + 2;
    else if (prev === VOWEL) index = letterRow(context, CONSONANT_AFTER_VOWEL) + 2;
    else if (context === IN_UNKNOWN) index = letterRow(IN_UNKNOWN, LEADING_CONSONANTS) + UNKNOWN_RUN;
    else index = letterRow(context, vowelSeen !== 0 ? CONSONANTS : LEADING_CONSONANTS) + run;
  } else {
    index = pairIndex(prev === SPACE && run !== 1 ? INDENT : prev, cls);
    run = cls === SPACE && prev === BREAK ? 2 : 1;
    if (isLetter(cls)) {
      context = prev === DIGIT ? IN_HASH : prev === SPACE ? IN_PROSE : IN_WORD;
      vowelSeen = 0;
    }
    if (isJson(cls) && !isJson(prev)) quoted = cls === QUOTE ? QUOTED : 0;
  }
  if (cls === VOWEL) vowelSeen = VOWEL_SEEN;
  const next = cls === COMMA && quoted !== 0 ? QUOTED_COMMA : cls;
  // Only what the next character's price can depend on is kept (fewer states to compile).
  if (run !== UNKNOWN_RUN && cls !== DIGIT) run = Math.min(run, cls === CONSONANT ? 5 : 2);
  const word = isLetter(cls) ? (context << CONTEXT_SHIFT) | vowelSeen : 0;
  const json = isJson(cls) ? quoted : 0;
  const zero = code === 48 ? ZERO : 0;
  return (index << STATE_BITS) | next | (run << RUN_SHIFT) | word | json | zero;
}
