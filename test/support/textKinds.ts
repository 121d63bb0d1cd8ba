/**
 * Long strings of the kinds a monitored system may send, from the cheapest for a tokenizer to the
 * densest: what one value cut to MAX_VALUE_CHARS (src/monitoredText.ts) costs is measured on them
 * (bench case value-cap-tokens, test/unit/monitoredText.test.ts). Deterministic: the same text every time.
 */

/** A pseudo-random pick from `alphabet`, `length` characters of it (whole characters: a two-unit one counts once). */
function picks(alphabet: readonly string[], length: number): string {
  let seed = 36;
  let text = "";
  for (let count = 0; count < length; count++) {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    text += alphabet[(seed >>> 16) % alphabet.length];
  }
  return text;
}

const PROSE =
  "The payment service returns errors for a growing share of checkout requests since the deploy of version 2.14; the database connection pool is exhausted on three of five replicas and retries amplify the load. ";

/** Each kind of text, `length` characters (UTF-16 units, at least) long. */
export const TEXT_KINDS: Readonly<Record<string, (length: number) => string>> = {
  "English prose (an annotation)": (length) =>
    PROSE.repeat(Math.ceil(length / PROSE.length)).slice(0, length),
  "one letter repeated": (length) => "x".repeat(length),
  "hex digits (an id, a hash)": (length) => picks([..."0123456789abcdef"], length),
  "base64 (a blob)": (length) =>
    picks([..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"], length),
  "CJK text": (length) => picks([..."数据库连接池已耗尽支付服务返回错误请检查副本状态"], length),
  "emoji (two units each)": (length) => picks(["😀", "🔥", "🚨", "✅"], Math.ceil(length / 2)),
  "control characters and quotes (escaped in JSON)": (length) =>
    picks(['"', "\\", "\n", "\t", "\u0001"], length),
};
