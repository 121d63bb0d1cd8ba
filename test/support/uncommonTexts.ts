/**
 * Text the token estimator (src/results/tokens.ts) has never seen: list answers (metric names, label
 * values, series) made of uncommon words rather than this project's vocabulary. Made-up words of random
 * syllables, consonant clusters and camel case, UUIDs, hashes, long paths, and values in other scripts;
 * each joined into names as Prometheus allows (`_`, `:`), into paths (`/`, `-`, `.`), or left alone.
 * Both tokenizers split such words into pieces of 2 or 3 letters, where the common words the estimator
 * was first priced on are one token each.
 *
 * @example
 * ```ts
 * const text = uncommonText(seededSource(1), 2_000); // about 2,000 characters of a list answer
 * ```
 */
import { type Source, unicodeValue, uuid } from "./resultTexts.js";

const pick = <T>(src: Source, items: readonly T[]): T => items[src.int(0, items.length - 1)] as T;
const CONSONANTS = "bcdfghjklmnpqrstvwxz";
/** Onsets of two or three letters, common and odd: `str`, `qu`, `kv`, `dz`. */
const CLUSTERS = [
  "st",
  "tr",
  "pl",
  "gr",
  "br",
  "ch",
  "sh",
  "th",
  "str",
  "qu",
  "zh",
  "kv",
  "ps",
  "pt",
  "gn",
  "dz",
  "fj",
  "mb",
  "wr",
  "sph",
];
const VOWELS = "aeiou";
const HEX = "0123456789abcdef";

const letters = (src: Source, alphabet: string, count: number) =>
  Array.from({ length: count }, () => alphabet[src.int(0, alphabet.length - 1)]).join("");

/** A made-up word: 1 to 4 syllables (an onset, a vowel or two, sometimes a coda), sometimes capitalised. */
export function madeUpWord(src: Source): string {
  let word = "";
  for (let s = src.int(1, 4); s > 0; s--) {
    word += src.int(0, 2) === 0 ? pick(src, CLUSTERS) : letters(src, CONSONANTS, 1);
    word += letters(src, VOWELS, src.int(0, 3) === 0 ? 2 : 1);
    if (src.int(0, 2) === 0) word += letters(src, CONSONANTS, 1);
  }
  return src.int(0, 3) === 0 ? `${word[0]?.toUpperCase()}${word.slice(1)}` : word;
}

/** One part of a name or value: a made-up word, a camel-case pair, hex, a number. */
function part(src: Source): string {
  switch (src.int(0, 5)) {
    case 0:
      return `${madeUpWord(src)}${madeUpWord(src).replace(/^./, (c) => c.toUpperCase())}`;
    case 1:
      return letters(src, HEX, src.int(4, 16));
    case 2:
      return `${madeUpWord(src)}${src.int(0, 999)}`;
    default:
      return madeUpWord(src);
  }
}

/** A value of one of the kinds: a metric name, a UUID, a hash, a long path, a value in another script. */
export function uncommonValue(src: Source): string {
  const parts = (count: number) => Array.from({ length: count }, () => part(src));
  switch (src.int(0, 5)) {
    case 0:
      return uuid(src);
    case 1:
      return letters(src, HEX, pick(src, [32, 40, 64]));
    case 2:
      return `/${parts(src.int(2, 6)).join("/")}.${pick(src, ["yaml", "json", "parquet", "tfstate"])}`;
    case 3:
      return unicodeValue(src);
    default:
      return parts(src.int(2, 7)).join(pick(src, ["_", "_", ":", "-"]));
  }
}

/** A list answer of uncommon values, about `chars` characters, as the list tools write them. */
export function uncommonText(src: Source, chars: number): string {
  const values: string[] = [];
  let length = 0;
  while (length < chars) {
    const value = uncommonValue(src);
    values.push(value);
    length += value.length + 3;
  }
  return JSON.stringify({ label: madeUpWord(src), values });
}
