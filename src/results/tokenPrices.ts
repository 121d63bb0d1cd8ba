// The token estimator's price tables: what each character costs each tokenizer, in 1/64 token, at the
// indexes `step` picks (tokenStates.ts). The figures were measured against both tokenizers and raised by a
// linear program and by hand, as tokens.ts' first comment tells; they are written here, not computed.

import {
  AFTER_UPPER,
  BREAK,
  CAMEL,
  CLASSES,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  CONSONANT,
  CONSONANT_AFTER_VOWEL,
  CONSONANTS,
  DIGIT,
  ENTRIES,
  IN_HASH,
  IN_PROSE,
  IN_UNKNOWN,
  IN_WORD,
  INDENT,
  LAST_RUN,
  LEADING_CONSONANTS,
  LETTER_RULES,
  letterRow,
  NON_ASCII,
  OPEN_BRACE,
  OPEN_BRACKET,
  OTHER,
  pairIndex,
  QUOTE,
  QUOTED_COMMA,
  RUN_STRIDE,
  runRow,
  SEPARATOR,
  SLASH,
  SPACE,
  START,
  STATES,
  UNKNOWN_RUN,
  UPPER,
  UPPER_RUN,
  VOWEL,
  VOWEL_AFTER_CONSONANT,
  VOWEL_AFTER_VOWEL,
  ZEROS,
} from "./tokenStates.js";

/** Prices are in 1/64 token. */
export const UNIT = 64;
/**
 * A text's first character costs this many tokens more: a margin for small texts, where one unlucky word
 * weighs more. It also bounds what a known word may cost more than its letters' prices (see knownPrice).
 */
export const START_SURCHARGE = 3;

// --- The price tables ----------------------------------------------------------------------------------------
// Built once, on first use (see compile), by the functions below in this order: a later one reads what an
// earlier one priced (a quoted comma copies a comma's prices; unknown contexts take the most of the known).

type Prices = readonly [claude: number, o200k: number];

/** Both tokenizers' prices, in 1/64 token, at the indexes `step` picks (PAIRS, RUNS, LETTERS, CAMEL…). */
export interface PriceTables {
  readonly claude: Uint16Array;
  readonly o200k: Uint16Array;
}

function price(prices: PriceTables, index: number, [claude, o200k]: Prices): void {
  prices.claude[index] = claude;
  prices.o200k[index] = o200k;
}

/** A run's prices from its 2nd character on; the last holds for every later one. */
function priceRun(prices: PriceTables, row: number, byPosition: readonly Prices[]): void {
  for (let n = 2; n <= LAST_RUN; n++) {
    price(prices, row + n, byPosition[Math.min(n - 2, byPosition.length - 1)] as Prices);
  }
}

/** The prices of every index `step` can pick. */
export function priceTables(): PriceTables {
  const prices: PriceTables = { claude: new Uint16Array(ENTRIES), o200k: new Uint16Array(ENTRIES) };
  priceClassChanges(prices);
  priceJsonPairs(prices);
  priceRuns(prices);
  priceLetters(prices);
  for (const table of [prices.claude, prices.o200k]) priceUnknownContexts(table);
  return prices;
}

/** A character after a different class: the defaults, and what spaces and line breaks change. */
function priceClassChanges(prices: PriceTables): void {
  // By default both tokenizers start a new piece where the class changes.
  for (let prev = 0; prev < STATES; prev++)
    for (let cls = 0; cls < CLASSES; cls++) price(prices, pairIndex(prev, cls), [64, 64]);
  for (let cls = 0; cls < CLASSES; cls++) {
    // A space begins the token of what follows (` the`, ` "`), which costs nothing more, except digits:
    // o200k keeps them apart from the space.
    price(prices, pairIndex(SPACE, cls), [0, cls === DIGIT ? 64 : 0]);
    // Indentation is one token and its last space begins the next (` "`): the character after it pays for
    // that; o200k leaves the last space alone before a digit (`   `, ` `, `170`).
    price(prices, pairIndex(INDENT, cls), [64, cls === DIGIT ? 128 : 64]);
  }
  for (let prev = 0; prev < STATES; prev++) {
    // A line break: Claude's token is `\n` and the indentation after it; o200k's is the punctuation before
    // it and `\n` (`",\n`), then the indentation is a token: an indented line costs both two after `",`.
    const afterWord = prev <= UPPER || prev === SPACE || prev === INDENT || prev === NON_ASCII;
    price(prices, pairIndex(prev, BREAK), [64, afterWord ? 64 : 0]);
  }
  price(prices, pairIndex(BREAK, SPACE), [0, 64]);
}

/**
 * The exceptions to priceClassChanges' defaults (most frequent first), and a comma of a run that began
 * with a quote. o200k glues one mark to the word after it (`_bytes`, `.internal`, `/api`, `(rate`), Claude
 * does not; JSON's runs of punctuation are single tokens in both (`","`, `":"`, `"},{"`, `"]`), but for
 * brackets after brackets (`[{`, `]}`: two in o200k) and `"],[` (below).
 */
function priceJsonPairs(prices: PriceTables): void {
  const PAIR_PRICES: ReadonlyArray<readonly [prev: number, cls: number, claude: number, o200k: number]> = [
    [SEPARATOR, CONSONANT, 64, 4], // `_bytes`: one token in o200k, two in Claude's
    [QUOTE, COLON, 0, 1],
    [QUOTE, COMMA, 5, 1],
    [CLOSE_BRACKET, COMMA, 10, 1],
    [QUOTED_COMMA, QUOTE, 1, 1],
    [COLON, QUOTE, 0, 11],
    [COMMA, QUOTE, 0, 2],
    [QUOTE, CLOSE_BRACKET, 7, 7],
    [SEPARATOR, VOWEL, 64, 3],
    [CLOSE_BRACE, COMMA, 17, 12],
    [OPEN_BRACE, QUOTE, 10, 7],
    [SLASH, CONSONANT, 64, 30],
    [QUOTE, CLOSE_BRACE, 10, 37],
    [QUOTE, SEPARATOR, 50, 70], // `"-Inf"`, `"_x"`
    [SEPARATOR, QUOTE, 74, 64],
    [OPEN_BRACKET, OPEN_BRACE, 21, 64], // `[{`
    [COLON, OPEN_BRACE, 16, 13],
    [COLON, OPEN_BRACKET, 62, 7],
    [COMMA, OPEN_BRACKET, 0, 1], // `],[` after a number: one token
    [CLOSE_BRACKET, CLOSE_BRACE, 74, 70], // `]}`
    [QUOTE, SLASH, 33, 6],
    [QUOTED_COMMA, OPEN_BRACE, 0, 7],
    [SLASH, VOWEL, 64, 47],
    [OPEN_BRACKET, CONSONANT, 64, 27],
    [SEPARATOR, UPPER, 64, 41],
    [QUOTE, OTHER, 27, 28], // `"+Inf"`
    [COLON, SLASH, 0, 1], // `://`
    [OTHER, CONSONANT, 45, 15],
    [OTHER, QUOTE, 20, 12], // `="`
    [OPEN_BRACKET, QUOTE, 10, 5],
    [CLOSE_BRACE, CLOSE_BRACKET, 56, 70],
    [OPEN_BRACE, CLOSE_BRACE, 10, 0],
    [CLOSE_BRACKET, SEPARATOR, 1, 6],
    [OPEN_BRACKET, CLOSE_BRACKET, 10, 0],
    [SLASH, COLON, 0, 0],
    [CLOSE_BRACE, SEPARATOR, 12, 9],
    [CLOSE_BRACE, OPEN_BRACKET, 64, 47],
    [CLOSE_BRACKET, OTHER, 32, 0],
    [SLASH, QUOTE, 33, 64],
    [CLOSE_BRACE, OTHER, 10, 0],
  ];
  for (const [prev, cls, claude, o200k] of PAIR_PRICES) price(prices, pairIndex(prev, cls), [claude, o200k]);
  // After a comma of a run that began with a quote, as after any comma, but for `"`, `{` (above) and `[`, which
  // starts a token: `"],[` is `"],` and `[` in both (the default), where `],[` after a number is one.
  for (let cls = 0; cls < CLASSES; cls++) {
    if (cls !== QUOTE && cls !== OPEN_BRACE && cls !== OPEN_BRACKET && cls !== BREAK) {
      price(prices, pairIndex(QUOTED_COMMA, cls), [
        prices.claude[pairIndex(COMMA, cls)] as number,
        prices.o200k[pairIndex(COMMA, cls)] as number,
      ]);
    }
  }
}

/** The n-th character of a run of one class. */
function priceRuns(prices: PriceTables): void {
  // Digits: o200k cuts every 3 (`170|000|036|0`). Claude's vocabulary holds fewer long numbers (`17|000|94|220`,
  // random digits 2.4 a token) but long runs of zeros (`17|00000|360`): by position from the 2nd digit, and
  // next to nothing for a 0 after a 0.
  const CLAUDE_DIGITS = [4, 31, 23, 23, 25, 32, 19, 40, 20, 25, 22, 27, 28, 35, 33, 23, 27];
  for (let n = 2; n <= LAST_RUN; n++) {
    const o200k = n % 3 === 1 ? 64 : 0;
    price(prices, runRow(DIGIT) + n, [
      CLAUDE_DIGITS[Math.min(n - 2, CLAUDE_DIGITS.length - 1)] as number,
      o200k,
    ]);
    price(prices, runRow(ZEROS) + n, [11, o200k]);
  }
  priceRun(prices, runRow(SPACE), [[1, 1]]); // one token up to ~80 spaces in both
  priceRun(prices, runRow(BREAK), [[64, 0]]); // `\n\n`
  priceRun(prices, runRow(QUOTE), [[0, 0]]);
  priceRun(prices, runRow(COMMA), [[64, 64]]);
  priceRun(prices, runRow(COLON), [[64, 64]]);
  priceRun(prices, runRow(OPEN_BRACKET), [[10, 63]]); // `[[`: two in o200k
  priceRun(prices, runRow(CLOSE_BRACKET), [[23, 7]]);
  priceRun(prices, runRow(OPEN_BRACE), [[64, 64]]);
  priceRun(prices, runRow(CLOSE_BRACE), [[10, 1]]);
  priceRun(prices, runRow(SEPARATOR), [[10, 7]]); // `__name__`, `...`
  priceRun(prices, runRow(SLASH), [[0, 3]]); // `//`
  priceRun(prices, runRow(OTHER), [[41, 29]]);
}

/**
 * What a letter of a word costs at least in Claude's tokenizer (in 1/64 token), after the word's first: a
 * safety floor for words that are not in KNOWN_WORDS. Claude's vocabulary splits words it has not learnt
 * (made-up product names, rare words, `quorvex` as `qu|or|vex`) every 2 or 3 letters, where the corpus the
 * other prices were measured on (test/support/resultTexts.ts) is made of common words, one token each.
 * Names and values pay it; words after a space (prose: notes, help texts) keep the corpus' prices.
 * priced on it alone, a list of uncommon names came to 1.16 times the estimate (bench case
 * catalogue-answers). At 26/64 (2.5 letters a token) the estimate holds on the large catalogues and on
 * generated uncommon text (test/support/uncommonTexts.ts); common words pay it too, a few percent of a
 * common answer's estimate (test/bench/tokenCalibration.ts prints both).
 */
const UNKNOWN_WORD_LETTER = 26;

/**
 * A letter after a letter of the same word. English words are mostly single tokens; random letters split
 * every 2 or 3. By position in the consonant run where that matters (the 2nd consonant on).
 */
function priceLetters(prices: PriceTables): void {
  const LETTER_PRICES: Record<number, Record<number, readonly Prices[]>> = {
    // Claude's are the safety floor for words it has never seen (UNKNOWN_WORD_LETTER), the 2nd of a
    // word's leading consonants too (`w|ro`, `m|bi`: made-up onsets are not `str`).
    [IN_WORD]: {
      [VOWEL_AFTER_CONSONANT]: [[UNKNOWN_WORD_LETTER, 4]],
      [CONSONANT_AFTER_VOWEL]: [[UNKNOWN_WORD_LETTER, 1]],
      [VOWEL_AFTER_VOWEL]: [[UNKNOWN_WORD_LETTER, 3]],
      [CONSONANTS]: [
        [UNKNOWN_WORD_LETTER, 2],
        [UNKNOWN_WORD_LETTER, 6],
        [UNKNOWN_WORD_LETTER, 6],
        [UNKNOWN_WORD_LETTER, 22],
      ],
      [LEADING_CONSONANTS]: [
        [UNKNOWN_WORD_LETTER, 14],
        [43, 36],
        [42, 42],
        [40, 40],
      ],
    },
    // Prose keeps the prices measured on the corpus: its words are mostly common English.
    [IN_PROSE]: {
      [VOWEL_AFTER_CONSONANT]: [[2, 4]],
      [CONSONANT_AFTER_VOWEL]: [[0, 1]],
      [VOWEL_AFTER_VOWEL]: [[2, 3]],
      [CONSONANTS]: [
        [1, 2],
        [2, 6],
        [2, 6],
        [19, 22],
      ],
      [LEADING_CONSONANTS]: [
        [6, 14],
        [43, 36],
        [42, 42],
        [40, 40],
      ],
    },
    [IN_HASH]: {
      [VOWEL_AFTER_CONSONANT]: [[9, 6]],
      [CONSONANT_AFTER_VOWEL]: [[5, 2]],
      [VOWEL_AFTER_VOWEL]: [[18, 15]],
      [CONSONANTS]: [
        [38, 35],
        [19, 19],
        [32, 22],
        [26, 26],
      ],
      [LEADING_CONSONANTS]: [
        [12, 13],
        [44, 36],
        [30, 30],
        [40, 40],
      ],
    },
  };
  for (const context of [IN_WORD, IN_HASH, IN_PROSE]) {
    for (let rule = 0; rule < LETTER_RULES; rule++) {
      priceRun(prices, letterRow(context, rule), LETTER_PRICES[context]?.[rule] as readonly Prices[]);
    }
  }
  price(prices, CAMEL, [74, 63]); // o200k always splits there, Claude mostly
  price(prices, UPPER_RUN, [6, 0]);
  // Claude's: the floor of a letter inside a word, as for the other letters of names and values: a made-up
  // capitalised word often keeps its capital alone (`B|ue|cud`, `F|oe|zozi`), where `Mem`, `Inf` are one token.
  price(prices, AFTER_UPPER, [UNKNOWN_WORD_LETTER, 3]);
}

/**
 * Unknown contexts (a text's first character, the run and the word it begins), in one table: the most any
 * context costs.
 */
function priceUnknownContexts(table: Uint16Array): void {
  const most = (from: number, to: number) => {
    let largest = 0;
    for (let i = from; i < to; i++) largest = Math.max(largest, table[i] as number);
    return largest;
  };
  for (let row = 0; row <= ZEROS; row++)
    table[runRow(row) + UNKNOWN_RUN] = most(runRow(row), runRow(row) + UNKNOWN_RUN);
  for (let rule = 0; rule < LETTER_RULES; rule++) {
    for (let n = 0; n < RUN_STRIDE; n++) {
      table[letterRow(IN_UNKNOWN, rule) + n] = Math.max(
        table[letterRow(IN_WORD, rule) + n] as number,
        table[letterRow(IN_HASH, rule) + n] as number,
        table[letterRow(IN_PROSE, rule) + n] as number,
      );
    }
  }
  // A consonant run of unknown start, with or without a vowel before it, at any position.
  table[letterRow(IN_UNKNOWN, LEADING_CONSONANTS) + UNKNOWN_RUN] = Math.max(
    most(letterRow(IN_UNKNOWN, CONSONANTS), letterRow(IN_UNKNOWN, CONSONANTS) + UNKNOWN_RUN),
    most(letterRow(IN_UNKNOWN, LEADING_CONSONANTS), letterRow(IN_UNKNOWN, LEADING_CONSONANTS) + UNKNOWN_RUN),
  );
  // A text's first character: the most its class costs after anything, and the surcharge.
  for (let cls = 0; cls < CLASSES; cls++) {
    let largest = UNIT;
    for (let prev = 0; prev < START; prev++)
      largest = Math.max(largest, table[pairIndex(prev, cls)] as number);
    largest = Math.max(largest, table[runRow(cls) + UNKNOWN_RUN] as number);
    table[pairIndex(START, cls)] = largest + START_SURCHARGE * UNIT;
  }
}
