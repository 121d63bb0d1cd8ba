/**
 * Text from the monitored systems is data, not instructions. Label names and values, annotations, rule
 * text, silence comments and creators, metric help, the messages of an error: whoever can set a label on
 * a target, write a rule or create a silence writes them, and they reach the model verbatim. One label
 * value can be longer than the whole budget (an item too large to show is not shown at all), or carry
 * words written for the model ("SYSTEM NOTICE TO THE ASSISTANT: …").
 *
 * So every string of an upstream answer is bounded once, where the data plane reads it
 * (src/prometheus/answerReader.ts), before anything measures, ranks, cuts or draws it: the text answer,
 * its structuredContent and a chart all hold the same bounded values, and an item with one long value
 * costs at most MAX_VALUE_CHARS of it, so it is still shown.
 */

import { isPlainObject, parseJsonBytes } from "./util/json.js";
import { cutText, formatCount } from "./util/text.js";

/**
 * The most characters (UTF-16 code units) of one string from a monitored system that an answer holds;
 * a longer one keeps its first characters and its last KEPT_END_CHARS (never half a surrogate pair),
 * with cutMarker between them.
 *
 * Why this many: 2,000 characters hold any annotation, rule expression or error message worth reading
 * whole, and one value cut here costs under a fifth of the default 20,000-token budget even for the
 * densest text (control characters escaped in JSON, CJK), by both Claude's tokenizer and o200k, so an
 * item with a cut value still fits it (bench case value-cap-tokens; test/unit/monitoredText.test.ts
 * asserts the fifth, test/property/monitoredText.test.ts that such items are shown).
 */
export const MAX_VALUE_CHARS = 2_000;

/**
 * Of MAX_VALUE_CHARS, how many come from the value's end: values built by joining (label_join, URLs,
 * file paths) share their start and differ at their end, and two series whose labels differ only
 * there must not become alike once cut.
 */
export const KEPT_END_CHARS = 200;

/**
 * What stands where a value was cut: how much is missing, and that it is not the value itself, so that
 * a model does not paste it into a selector as it is (a regex of its start and end matches the whole).
 */
export function cutMarker(cut: number): string {
  const characters = cut === 1 ? "character" : "characters";
  return `…[cut: ${formatCount(cut)} ${characters}; to match it, use =~ with its start, .* and its end]…`;
}

const CUT_MARKER = /…\[cut: [\d,]+ characters?; to match it, use =~ with its start, \.\* and its end\]…/;

/** True when `text` holds cutMarker: a value this module cut (or one written to look like it), not a value to copy. */
export function isCutValue(text: string): boolean {
  return CUT_MARKER.test(text);
}

/**
 * `text` as an answer may hold it: as it is up to MAX_VALUE_CHARS, else its start, cutMarker and its
 * last KEPT_END_CHARS (the same string when not cut).
 */
export function boundValue(text: string): string {
  if (text.length <= MAX_VALUE_CHARS) return text;
  const start = cutText(text, MAX_VALUE_CHARS - KEPT_END_CHARS, "");
  let end = text.length - KEPT_END_CHARS;
  if (isLowSurrogate(text.charCodeAt(end))) end++;
  return `${start}${cutMarker(end - start.length)}${text.slice(end)}`;
}

/** The second half of a surrogate pair (U+DC00 to U+DFFF). */
function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/**
 * A parsed JSON value with every string bounded, object keys too (a label name is text as much as its
 * value); the same value, not a copy, when nothing needed cutting. Keys are set as data (a label named
 * `__proto__` stays a label). Two keys that differ only past MAX_VALUE_CHARS characters, and by nothing
 * in their length, become one: the last wins.
 */
export function boundStrings<T>(value: T): T {
  if (typeof value === "string") return boundValue(value) as T;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      const bounded = boundStrings(item);
      if (bounded === item) continue;
      copy ??= value.slice();
      copy[index] = bounded;
    }
    return (copy ?? value) as T;
  }
  if (!isPlainObject(value)) return value;
  let changed = false;
  const entries = Object.entries(value).map(([key, item]) => {
    const boundedKey = boundValue(key);
    const bounded = boundStrings(item);
    if (boundedKey !== key || bounded !== item) changed = true;
    return [boundedKey, bounded] as const;
  });
  return (changed ? Object.fromEntries(entries) : value) as T;
}

const ENCODER = new TextEncoder();

/**
 * One element of an answer as its bytes, every string in it bounded: parsed, bounded and written again as
 * compact JSON (keys in their order), or the same bytes when none was over. Bytes that are not JSON throw
 * MalformedJsonError, as the sink reading them would.
 */
export function boundElement(raw: Uint8Array): Uint8Array {
  const parsed = parseJsonBytes(raw);
  const bounded = boundStrings(parsed);
  return bounded === parsed ? raw : ENCODER.encode(JSON.stringify(bounded));
}
