/**
 * What a tenant may be (a caller's TENANT_CLAIM, an ALLOWED_TENANTS or `allowed_tenants` entry): 1 to
 * 128 letters, digits, `.`, `_`, `:` and `-`, never `.` or `..` alone. One set wherever a tenant goes:
 * the tenant header (Mimir's and Cortex's X-Scope-OrgID) and a URL's path (VictoriaMetrics cluster's
 * `<accountID>:<projectID>`). Left out on purpose: `|`, which a Mimir or Cortex with tenant federation
 * reads as several tenants (`a|b` would read both); `/`, `%` and `..`, which change a path; whitespace,
 * control and non-ASCII characters, which a header cannot carry as they are.
 */
const TENANT = /^(?!\.{1,2}$)[A-Za-z0-9._:-]{1,128}$/;

/** The set in words, for messages and the README. */
export const TENANT_SET = "1 to 128 letters, digits, ., _, : or - (not . or .. alone)";

/** True when `value` is a tenant this server can send on (see TENANT). */
export function isTenant(value: string): boolean {
  return TENANT.test(value);
}
