/** A JSON object (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Half of a UTF-16 surrogate pair without its other half: not text; UTF-8 and percent-encoding cannot hold it. */
export function hasLoneSurrogate(text: string): boolean {
  return /\p{Cs}/u.test(text);
}

/** Bytes that should have been JSON and are not: an element of a Prometheus answer that does not parse. */
export class MalformedJsonError extends Error {
  override name = "MalformedJsonError";
}

const DECODER = new TextDecoder();

/** UTF-8 bytes of one JSON value, parsed; MalformedJsonError when they are not JSON. */
export function parseJsonBytes(raw: Uint8Array): unknown {
  try {
    return JSON.parse(DECODER.decode(raw));
  } catch {
    throw new MalformedJsonError("an element of its data is not valid JSON");
  }
}
