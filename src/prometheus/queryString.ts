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

/** Query parameters: a list is sent as the key repeated (`match[]=a&match[]=b`), in its order. */
export type QueryParams = Record<string, string | readonly string[] | undefined>;

/** Builds `a=1&b=2` from the defined entries, in the given order. */
export function buildQueryString(params: QueryParams): string {
  return Object.entries(params)
    .flatMap(([key, value]) =>
      value === undefined ? [] : [value].flat().map((one) => `${encodeRfc3986(key)}=${encodeRfc3986(one)}`),
    )
    .join("&");
}
