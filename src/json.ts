/** A JSON object (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Half of a UTF-16 surrogate pair without its other half: not text; UTF-8 and percent-encoding cannot hold it. */
export function hasLoneSurrogate(text: string): boolean {
  return /\p{Cs}/u.test(text);
}
