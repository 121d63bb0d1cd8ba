/**
 * `text` when it has at most `max` UTF-16 code units; else its first `max` code units, followed by
 * `marker` ("…" unless told: "" for none). A surrogate pair is never split: when the last unit kept
 * would be a pair's first half, the cut falls one unit earlier. So the text kept never exceeds `max`
 * code units (the result, `max` plus the marker's), and well-formed text stays well-formed.
 */
export function cutText(text: string, max: number, marker = "…"): string {
  if (!Number.isInteger(max) || max < 0) throw new RangeError(`cutText needs a whole max >= 0: ${max}`);
  if (text.length <= max) return text;
  const end = max > 0 && isHighSurrogate(text.charCodeAt(max - 1)) ? max - 1 : max;
  return `${text.slice(0, end)}${marker}`;
}

/** The first half of a surrogate pair (U+D800 to U+DBFF). */
function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/** `1234567` → `1,234,567`: numbers a person or a model reads. */
export function formatCount(count: number): string {
  return count.toLocaleString("en-US");
}

/** A size for a person: `42.1 MB` from a million bytes up, else `640 kB` (decimal units, as HTTP tools show them). */
export function formatSize(bytes: number): string {
  return bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${formatCount(Math.round(bytes / 1e3))} kB`;
}
