/**
 * Percent-encodes per RFC 3986 (unreserved characters only left as is; space is `%20`, never `+`).
 * This is the same escaping SigV4 applies to the canonical query, so the bytes sent are the bytes signed.
 */
export function encodeRfc3986(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** Builds `a=1&b=2` from the defined entries, in the given order. */
export function buildQueryString(params: Record<string, string | undefined>): string {
  return Object.entries(params)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([key, value]) => `${encodeRfc3986(key)}=${encodeRfc3986(value)}`)
    .join("&");
}
