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
 */

/** Prices are in 1/64 token. */
const UNIT = 64;
/**
 * A text's first character costs this many tokens more: a margin for small texts, where one unlucky word
 * weighs more. It also bounds what a known word may cost more than its letters' prices (see knownPrice).
 */
const START_SURCHARGE = 3;

// Character classes (ASCII). Non-ASCII characters are priced by their UTF-8 bytes, outside the classes.
const DIGIT = 0;
const VOWEL = 1; // a e i o u
const CONSONANT = 2; // other lower-case letters
const UPPER = 3;
const SPACE = 4;
const BREAK = 5; // \n \r \t
const QUOTE = 6;
const COMMA = 7;
const COLON = 8;
const OPEN_BRACKET = 9; // [ (
const CLOSE_BRACKET = 10; // ] )
const OPEN_BRACE = 11;
const CLOSE_BRACE = 12;
const SEPARATOR = 13; // . - _ (inside names and addresses)
const SLASH = 14;
const OTHER = 15; // other punctuation, and control characters
const CLASSES = 16;
// What can precede a character besides a class.
const NON_ASCII = 16;
const INDENT = 17; // 2+ spaces, or spaces after a line break
const QUOTED_COMMA = 18; // a comma in a run of punctuation that began with a quote (`"],[`)
const START = 19;
const STATES = 20;

const CLASS_OF = new Uint8Array(128).fill(OTHER);
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
const isLetter = (cls: number) => cls === VOWEL || cls === CONSONANT || cls === UPPER;
const isJson = (cls: number) => (cls >= QUOTE && cls <= CLOSE_BRACE) || cls === QUOTED_COMMA;

// Every price is looked up in CLAUDE and O200K at an index `step` picks: a class after a different class
// or state (PAIRS), the n-th character of a run of one class (RUNS), or a letter after a letter of the same
// word (LETTERS, by the word's context). Runs and letter rules are rows of RUN_STRIDE positions.
const RUN_STRIDE = 32;
/** Where the run's length saturates (it cycles 28, 29, 30 from there, keeping o200k's digit triples). */
const LAST_RUN = 30;
/** The position of a character in a run whose start is unknown (one the text begins with). */
const UNKNOWN_RUN = 31;
const PAIRS = 0;
const RUNS = STATES * CLASSES;
/** A run row beyond the classes': a 0 after a 0 in a run of digits. */
const ZEROS = CLASSES;
const LETTERS = RUNS + (CLASSES + 1) * RUN_STRIDE;
// Letter rules, by the context of the word: a word (in a name or value: after a quote or a separator); a
// run of letters right after a digit (hex ids, UUIDs, pod hashes: `7d9f8b6c5`, `4fd86`), where random
// letter pairs split far more often; a word after a space (prose); and unknown (the text's first word),
// priced at the largest of the three.
const VOWEL_AFTER_CONSONANT = 0;
const CONSONANT_AFTER_VOWEL = 1;
const VOWEL_AFTER_VOWEL = 2;
const CONSONANTS = 3; // a consonant after a consonant, in a word that has had a vowel
const LEADING_CONSONANTS = 4; // a consonant after a consonant, before any vowel (`str`, a hash's `bqxzl`)
const LETTER_RULES = 5;
const IN_WORD = 0;
const IN_HASH = 1;
const IN_UNKNOWN = 2;
/** A word after a space: prose (notes, help texts, annotations), words both tokenizers mostly know. */
const IN_PROSE = 3;
const CAMEL = LETTERS + 4 * LETTER_RULES * RUN_STRIDE; // upper-case after lower-case (`MemAvailable`)
const UPPER_RUN = CAMEL + 1; // `GET`
const AFTER_UPPER = CAMEL + 2; // `Mem`, `Inf`
const ENTRIES = CAMEL + 3;

export const KNOWN_WORDS: readonly string[] =
  `status:0/0/0 success data:0/0/0 result:0/0/0 resultType:1/1/1 vector:0/0/0 matrix scalar string:0/0/0
  metric value:0/0/0 values name:0/0/0 series stats common:0/0/0 labels columns rows min:0/0/0 max:0/0/0
  avg last samples at note cut by:0/0/0 size total points bytes returned order:0/0/0 unusual:1/1/1 step
  seconds method limit metrics hint every truncated:0/1/1 downsampled:1/2/2 asked:1/0/1 instance job:0/0/0
  namespace pod container:0/0/0 node:0/0/0 service:0/0/0 endpoint image:0/0/0 id:0/0/0 cpu mode
  device:0/0/0 mountpoint:0/1/2 fstype:1/1/1 code:0/0/0 handler phase uid deployment le:0/0/0
  quantile:0/1/2 verb resource:0/0/0 group:0/0/0 version:0/0/0 scope component:0/0/0 path:0/0/0 host
  cluster zone region kind reason state:0/0/0 idle user:0/0/0 system:0/0/0 irq nice true false GET POST
  PUT DELETE PATCH LIST Pending Running Failed Unknown memory usage http:0/0/0 requests request:0/0/0
  duration bucket count:0/0/0 sum info:0/0/0 rate errors:0/0/0 network:0/0/0 receive:0/0/2 transmit:0/1/1
  disk read:0/0/0 write:0/0/0 filesystem avail load:0/0/0 kube:1/1/1 restarts:1/1/1 available
  replicas:0/1/2 process:0/0/0 resident go:0/0/0 threads up:0/0/0 exporter:0/1/1 api:0/0/0 server:0/0/0
  controller:0/0/0 manager proxy ingress:0/1/2 nginx:0/1/1 cert webhook:0/1/1 operator prometheus:1/1/1
  grafana:2/1/2 alertmanager:1/1/2 main:0/0/0 coredns:1/2/2 aws balancer:0/1/2 ebs:1/1/2 csi:0/1/1
  istio:1/1/2 gateway internal compute svc local:0/0/0 dkr:1/1/1 ecr:1/1/1 amazonaws:0/1/2 com:0/0/0
  kubepods:3/2/3 burstable:1/1/2 besteffort:1/2/3 slice cri containerd:1/1/1 healthz:1/1/2 readyz:1/1/2
  query:0/0/0 range label apiserver:2/2/2 kubelet:2/2/2 etcd:1/1/2 cadvisor:1/1/1 headless:0/1/1
  scrape:0/1/2 scraped:0/1/2 io time:0/0/0 drop:0/0/0 boot vmstat:1/1/2 pgmajfault:2/2/3 nf
  conntrack:2/1/2 entries timex:1/1/2 offset cfs:1/1/1 throttled:2/2/2 periods:0/1/2 working set:0/0/0 rss
  fs writes oom events:0/0/0 spec:0/0/0 condition allocatable:1/1/2 current:0/0/0
  persistentvolumeclaim:2/2/3 failed volume running pods:1/0/1 pleg:1/1/2 relist:1/1/1 inflight:1/1/1
  mvcc:1/1/2 db:0/0/0 in:0/0/0 workqueue:1/1/1 depth adds rest:0/0/0 client:0/0/0 dns cache:0/0/0 hits
  goroutines:2/1/2 gc memstats:1/1/2 heap alloc open:0/0/0 fds grpc handled handling milliseconds
  envoy:1/1/1 upstream:0/1/1 rq tsdb:1/1/2 head:0/0/0 remote storage:0/0/0 pending notifications probe
  karpenter:2/2/3 nodes argocd:2/2/3 app:0/0/0 sync certmanager:1/1/2 certificate expiration timestamp
  jvm:1/1/1 redis pg stat:0/0/0 kafka:0/1/1 scheduler lag sessions transactions evictions:2/1/2 queue
  pause written active ratio horizontalpodautoscaler:3/3/4 hikaricp:4/3/3 consumergroup:1/3/4`
    .split(/\s+/)
    .filter(Boolean);

const WORD_SEED = 0x811c9dc5 | 0;
const hashStep = (hash: number, code: number) => Math.imul(hash ^ code, 0x01000193) | 1;

// --- The walk -----------------------------------------------------------------------------------------------
// The state carried from one character to the next, in an integer: bits 0-4 what precedes (a class or a
// state), 5-9 the position in the run (UNKNOWN_RUN: unknown), 10-11 the word's context, 12 a vowel seen in
// the word, 13 the run of punctuation began with a quote, 14 the character was a 0.
const RUN_SHIFT = 5;
const CONTEXT_SHIFT = 10;
const VOWEL_SEEN = 1 << 12;
const QUOTED = 1 << 13;
const ZERO = 1 << 14;
const STATE_BITS = 15;
const STATE_MASK = (1 << STATE_BITS) - 1;
const START_STATE = START | (UNKNOWN_RUN << RUN_SHIFT) | (IN_UNKNOWN << CONTEXT_SHIFT) | QUOTED;
const NON_ASCII_STATE = NON_ASCII | (1 << RUN_SHIFT);

const pairIndex = (prev: number, cls: number) => PAIRS + prev * CLASSES + cls;
const runRow = (cls: number) => RUNS + cls * RUN_STRIDE;
const letterRow = (context: number, rule: number) => LETTERS + (context * LETTER_RULES + rule) * RUN_STRIDE;

/** One ASCII character after `state`: the index of its prices in the high bits, the next state in the low. */
function step(state: number, code: number): number {
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

// --- The price tables ----------------------------------------------------------------------------------------
// Built once, on first use (see compile), by the functions below in this order: a later one reads what an
// earlier one priced (a quoted comma copies a comma's prices; unknown contexts take the most of the known).

type Prices = readonly [claude: number, o200k: number];

/** Both tokenizers' prices, in 1/64 token, at the indexes `step` picks (PAIRS, RUNS, LETTERS, CAMEL…). */
interface PriceTables {
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
function priceTables(): PriceTables {
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
    // Claude's are the safety floor for words it has never seen (UNKNOWN_WORD_LETTER).
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
        [6, 14],
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
  price(prices, AFTER_UPPER, [4, 3]);
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

// --- Known words ------------------------------------------------------------------------------------------
/**
 * The words results repeat in every series (the keys of Prometheus' answers and of this server's, label
 * names, and the vocabulary of Kubernetes, cAdvisor, node_exporter, kube-state-metrics and EKS names), with
 * their exact cost: a whole letter run that is one of these, right after a quote or a separator (`.-_/`)
 * and ended by ASCII that is not a letter, costs its first letter and the tokens each tokenizer takes for
 * the rest (see knownPrice). `word` takes none more in Claude's and after a quote in o200k's, one more in
 * o200k's after a separator (o200k glues a mark to a single letter, `-x`, but not to a word, `-|node`);
 * `word:c/q/s` takes c more in Claude's, q more in o200k's after a quote and s after a separator. Checked
 * against both tokenizers in test/property/tokens.test.ts.
 */
function knownWordTable() {
  const KNOWN_SLOTS = 1024;
  /** Open addressing: a word's hash (never 0) at its hash's slot or the next free one. */
  const KNOWN = new Int32Array(KNOWN_SLOTS);
  /** Its extra tokens, 4 bits each: Claude's, o200k's after a quote, o200k's after a separator. */
  const KNOWN_EXTRA = new Uint16Array(KNOWN_SLOTS);
  for (const entry of KNOWN_WORDS) {
    const [word = "", extra = "0/0/1"] = entry.split(":");
    const [claude = 0, afterQuote = 0, afterSeparator = 0] = extra.split("/").map(Number);
    let hash = WORD_SEED;
    for (let i = 0; i < word.length; i++) hash = hashStep(hash, word.charCodeAt(i));
    let slot = hash & (KNOWN_SLOTS - 1);
    while (KNOWN[slot] !== 0) slot = (slot + 1) & (KNOWN_SLOTS - 1);
    KNOWN[slot] = hash;
    KNOWN_EXTRA[slot] = claude | (afterQuote << 4) | (afterSeparator << 8);
  }
  /** The slot of a known word's hash, or -1. */
  function knownSlot(hash: number): number {
    for (let slot = hash & (KNOWN_SLOTS - 1); KNOWN[slot] !== 0; slot = (slot + 1) & (KNOWN_SLOTS - 1)) {
      if (KNOWN[slot] === hash) return slot;
    }
    return -1;
  }
  return { knownSlot, knownExtraTable: KNOWN_EXTRA };
}

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
function tables(): ReturnType<typeof compile> {
  compiled ??= compile();
  return compiled;
}

/**
 * The extra tokens of the known word of this hash (see KNOWN_WORDS), in 1/64 token: Claude's in bits 0-15,
 * o200k's in bits 16-31; or -1 for a word that is not known.
 */
function knownExtra(hash: number, before: number): number {
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
 * JSON's literals as values (`[1,null,2]`, `"a":true`): unquoted, right after `,` `:` or `[`, where no
 * other word is known (a bare word there is not JSON). Each costs its first letter and, beyond it, no
 * token more in Claude's and at most one in o200k's (checked in test/property/tokens.test.ts): a table's
 * `null` cells and a compact curve's gaps, priced as unknown letters, cost three times what they do.
 */
export const JSON_LITERALS: readonly string[] = ["null", "true", "false"];
const JSON_LITERAL_HASHES = new Set(
  JSON_LITERALS.map((word) => {
    let hash = WORD_SEED;
    for (let i = 0; i < word.length; i++) hash = hashStep(hash, word.charCodeAt(i));
    return hash;
  }),
);
/** Claude's extra (none) in bits 0-15, o200k's (one token) in bits 16-31, as knownExtra returns them. */
const JSON_LITERAL_EXTRA = 0 * UNIT + 1 * UNIT * 65536;

/**
 * A known word costs its first letter and its extra tokens, or at most START_SURCHARGE more than its
 * letters did (what a piece cut out of it, or beginning with what ended it, pays more than in the whole):
 * the price of its letters after the first, given what they were priced.
 */
const knownPrice = (extra: number, priced: number) => Math.min(extra, priced + START_SURCHARGE * UNIT);

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
