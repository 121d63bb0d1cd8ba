/** Visible ASCII, space and tab: what RFC 9110 allows in a field value. */
const FIELD_VALUE = /^[\x20-\x7E\t]*$/;

/**
 * `value` without the spaces and horizontal tabs around it: the only whitespace (OWS) RFC 9110 §5.5
 * lets surround a field value. Not JavaScript's `trim()`: a no-break space, a BOM or a line separator
 * is part of the value, and refused where a value may not hold it. A loop, not a regular expression:
 * `/[ \t]+$/` takes quadratic time on a long run of spaces followed by something else.
 */
export function trimOws(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isOws(value.charCodeAt(start))) start++;
  while (end > start && isOws(value.charCodeAt(end - 1))) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

function isOws(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

/** True when `value` holds only what RFC 9110 allows in a field value (visible ASCII, space, tab). */
export function isFieldValue(value: string): boolean {
  return FIELD_VALUE.test(value);
}

/** True when the header was sent with something other than spaces and tabs in it. */
export function present(value: string | undefined): value is string {
  return value !== undefined && trimOws(value) !== "";
}
