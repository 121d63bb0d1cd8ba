/**
 * PROMETHEUS_HEADERS: headers sent on every Prometheus and Alertmanager request (a tenant's
 * `X-Scope-OrgID` for Mimir or Cortex, a routing header of a gateway), as `Name: value` lines or a JSON
 * object of names to values. Credentials never go here: they go in PROMETHEUS_SECRET, which is kept in
 * Secrets Manager or SSM rather than in the function's configuration.
 */

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Visible ASCII and spaces: no line breaks, nothing a header cannot carry as it is. */
const VALUE = /^[\x20-\x7e]*$/;
/** Headers this server sets itself, or that hold credentials (which belong in PROMETHEUS_SECRET). */
const NOT_SETTABLE = new Set([
  "accept",
  "authorization",
  "proxy-authorization",
  "cookie",
  "host",
  "content-length",
  "content-type",
  "connection",
  "transfer-encoding",
  "te",
  "upgrade",
  "keep-alive",
  "expect",
]);

/** The headers, names lower-cased; throws an Error whose message says what was expected (never a value). */
export function parseHeaders(text: string): Record<string, string> {
  const pairs = text.trimStart().startsWith("{") ? jsonPairs(text) : linePairs(text);
  const headers: Record<string, string> = {};
  for (const [rawName, rawValue] of pairs) {
    const name = rawName.trim();
    const value = rawValue.trim();
    if (!TOKEN.test(name))
      throw new Error(`a header name (letters, digits, -), not ${JSON.stringify(name.slice(0, 40))}`);
    const lower = name.toLowerCase();
    if (NOT_SETTABLE.has(lower) || lower.startsWith("x-amz-")) {
      throw new Error(
        `headers other than ${name} (this server sets it, or it holds credentials: those go in PROMETHEUS_SECRET with PROMETHEUS_AUTH=basic or bearer)`,
      );
    }
    if (!VALUE.test(value)) throw new Error(`${name}'s value in visible ASCII on one line`);
    if (Object.hasOwn(headers, lower)) throw new Error(`${name} once`);
    headers[lower] = value;
  }
  return headers;
}

function jsonPairs(text: string): Array<[string, string]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('a JSON object of header names to string values, e.g. {"X-Scope-OrgID": "team-a"}');
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new Error('a JSON object of header names to string values, e.g. {"X-Scope-OrgID": "team-a"}');
  }
  return Object.entries(parsed).map(([name, value]) => {
    if (typeof value !== "string") throw new Error(`${name}'s value as a JSON string`);
    return [name, value];
  });
}

function linePairs(text: string): Array<[string, string]> {
  return text
    .split(/\r?\n/)
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const colon = line.indexOf(":");
      if (colon <= 0) throw new Error('one "Name: value" per line, e.g. X-Scope-OrgID: team-a');
      return [line.slice(0, colon), line.slice(colon + 1)];
    });
}
