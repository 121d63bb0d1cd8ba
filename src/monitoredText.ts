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

import { isPlainObject, parseJsonBytes } from "./json.js";
import { cutText, formatCount } from "./text.js";

/**
 * The most characters (UTF-16 code units) of one string from a monitored system that an answer holds;
 * a longer one keeps its first MAX_VALUE_CHARS (never half a surrogate pair) and ends with cutMarker.
 *
 * Why this many: 2,000 characters hold any annotation, rule expression or error message worth reading
 * whole, and one value cut here costs under a fifth of the default 20,000-token budget even for the
 * densest text (control characters escaped in JSON, CJK), by both Claude's tokenizer and o200k, so an
 * item with a cut value still fits it (bench case value-cap-tokens; test/unit/monitoredText.test.ts
 * asserts the fifth, test/property/monitoredText.test.ts that such items are shown).
 */
export const MAX_VALUE_CHARS = 2_000;

/**
 * What ends a cut value: how much is missing, and that it is not the value itself, so that a model does
 * not paste it into a selector as it is (a regex on its start matches the whole value).
 */
export function cutMarker(more: number): string {
  const characters = more === 1 ? "character" : "characters";
  return `…[cut: ${formatCount(more)} more ${characters}; to match it, use =~ with its start and .*]`;
}

const CUT_MARKER = /…\[cut: [\d,]+ more characters?; to match it, use =~ with its start and \.\*\]$/;

/** True when `text` is a value this module cut (it ends with cutMarker): not the value itself. */
export function isCutValue(text: string): boolean {
  return CUT_MARKER.test(text);
}

/** `text` as an answer may hold it: as it is up to MAX_VALUE_CHARS, else cut (the same string when not cut). */
export function boundValue(text: string): string {
  if (text.length <= MAX_VALUE_CHARS) return text;
  const kept = cutText(text, MAX_VALUE_CHARS, "");
  return `${kept}${cutMarker(text.length - kept.length)}`;
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
