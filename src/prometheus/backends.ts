import { ampRegionOfUrl, workspaceIdFromUrl } from "./access.js";
import { type AuthMode, credentialsProblem } from "./auth.js";
import { parseHeaders } from "./headers.js";
import { type Secret, type SecretSource, secretSourceOf } from "./secrets.js";
import { isTenant, TENANT_SET } from "./tenants.js";
import { hasCredentials } from "./urls.js";

/**
 * BACKENDS: several named Prometheus-compatible servers in one deployment, each with its URL, auth,
 * headers, Alertmanager and the tenants that may use it. A JSON object of names to backends:
 *
 * ```json
 * {
 *   "prod": {"url": "https://aps-workspaces.us-east-1.amazonaws.com/workspaces/ws-…", "default": true},
 *   "mimir": {"url": "https://mimir.example.com/prometheus", "auth": "bearer",
 *             "secret": "arn:aws:secretsmanager:us-east-1:123456789012:secret:mimir",
 *             "headers": {"X-Scope-OrgID": "team-a"}, "kind": "mimir"},
 *   "vm": {"url": "http://vmselect:8481/select/{tenant}/prometheus", "allowed_tenants": ["42"]}
 * }
 * ```
 *
 * The tools take a backend's name where they take `workspace_id`; an AMP workspace id stays `ws-…`, so
 * no name may start with it.
 */

/** What kind of server a backend is (GetServerInfo, GetAvailableWorkspaces): what a caller may expect of it. */
export const BACKEND_KINDS = ["amp", "prometheus", "mimir", "cortex", "thanos", "victoriametrics"] as const;
export type BackendKind = (typeof BACKEND_KINDS)[number];

/** A backend as the configuration describes it (src/config/rules.ts reads BACKENDS into these). */
export interface BackendSpec {
  name: string;
  /** Its Prometheus URL; `{tenant}` in its path is each caller's tenant (VictoriaMetrics cluster). */
  url: string;
  auth: AuthMode;
  secret?: SecretSource | undefined;
  headers: Readonly<Record<string, string>>;
  alertmanagerUrl?: string | undefined;
  kind: BackendKind;
  description?: string | undefined;
  /** The backend a call without workspace_id uses (the only one, or the one marked `default`). */
  isDefault: boolean;
  /** The tenants (TENANT_CLAIM) that may use it; undefined: every caller. */
  allowedTenants?: readonly string[] | undefined;
}

/** `{tenant}` in a URL: the caller's tenant goes there (raw, or as `new URL` writes it). */
const TENANT_PLACEHOLDER = /\{tenant\}|%7Btenant%7D/gi;

/** True when the URL takes the caller's tenant in its path. */
export function hasTenantPlaceholder(url: string): boolean {
  TENANT_PLACEHOLDER.lastIndex = 0;
  const found = TENANT_PLACEHOLDER.test(url);
  TENANT_PLACEHOLDER.lastIndex = 0;
  return found;
}

/**
 * The URL with the caller's tenant in place of `{tenant}`; undefined when the tenant cannot go in a
 * path. A tenant (src/prometheus/tenants.ts) holds VictoriaMetrics' `<accountID>[:<projectID>]` and
 * names of letters, digits, `.`, `_` and `-`: never `/`, `..`, `%` or anything that changes the path.
 */
export function withTenant(url: string, tenant: string): string | undefined {
  if (!isTenant(tenant)) return undefined;
  return url.replace(TENANT_PLACEHOLDER, tenant);
}

/** VictoriaMetrics cluster's select path: `/select/<accountID>[:<projectID>]/prometheus`. */
const VICTORIA_CLUSTER_PATH = /\/select\/(?:\{tenant\}|%7Btenant%7D|\d+(?::\d+)?)\/prometheus(?:\/|$)/i;

/** The kind of a server at `url`: as declared, else AMP's URL says amp, vmselect's path victoriametrics, else prometheus. */
export function kindOf(url: string | undefined, declared: BackendKind | undefined): BackendKind {
  if (declared !== undefined) return declared;
  if (url === undefined) return "amp";
  if (workspaceIdFromUrl(url) !== undefined || ampRegionOfUrl(url) !== undefined) return "amp";
  return VICTORIA_CLUSTER_PATH.test(url) ? "victoriametrics" : "prometheus";
}

/** A backend's name: what a call passes as workspace_id, so never an AMP workspace id's `ws-`. */
const BACKEND_NAME = /^(?![Ww][Ss]-)[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;
export const MAX_BACKENDS = 50;
const MAX_DESCRIPTION = 200;

const FIELDS = [
  "url",
  "auth",
  "secret",
  "headers",
  "alertmanager_url",
  "kind",
  "description",
  "default",
  "allowed_tenants",
] as const;

const AUTH_MODES: readonly AuthMode[] = ["sigv4", "none", "basic", "bearer"];

/** How BACKENDS is read: where secrets may be the value itself, and the region of an `ssm:/path`. */
export interface BackendRules {
  /** In Lambda a secret must be kept in Secrets Manager or SSM, never in the function's configuration. */
  inLambda: boolean;
  defaultRegion: string;
}

/**
 * The backends BACKENDS describes (a JSON object, see above). Throws an Error saying what was expected
 * and which backend and field is wrong; it never quotes a secret or a header's value.
 */
export function parseBackends(text: string, rules: BackendRules): BackendSpec[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(
      'a JSON object of backend names to backends, e.g. {"prod": {"url": "https://prometheus.example.com"}}, or the path of a file holding one',
    );
  }
  if (!isObject(parsed) || Object.keys(parsed).length === 0) {
    throw new Error('a JSON object naming at least one backend, e.g. {"prod": {"url": "https://…"}}');
  }
  const entries = Object.entries(parsed);
  if (entries.length > MAX_BACKENDS) throw new Error(`at most ${MAX_BACKENDS} backends`);
  const backends = entries.map(([name, fields]) => backendOf(name, fields, rules));
  const marked = backends.filter((backend) => backend.isDefault);
  if (marked.length > 1) {
    throw new Error(
      `one default backend at most, not ${marked.map((backend) => backend.name).join(" and ")}`,
    );
  }
  if (backends.length === 1 && backends[0] !== undefined) backends[0].isDefault = true;
  return backends;
}

function backendOf(name: string, fields: unknown, rules: BackendRules): BackendSpec {
  if (!BACKEND_NAME.test(name)) {
    throw new Error(
      `backend names of 1 to 63 letters, digits, ., _ or - not starting with ws- (an AMP workspace id's), not ${JSON.stringify(name.slice(0, 70))}`,
    );
  }
  const where = `backend "${name}"`;
  if (!isObject(fields)) throw new Error(`${where} as a JSON object with at least "url"`);
  const unknown = Object.keys(fields).filter((key) => !(FIELDS as readonly string[]).includes(key));
  if (unknown.length > 0) {
    throw new Error(`${where} with only the fields ${FIELDS.join(", ")}; not ${unknown.join(", ")}`);
  }
  const url = httpUrlField(fields.url, `${where} "url"`, true) as string;
  const auth = authOf(fields.auth, url, where);
  if (auth !== "none" && hasCredentials(url)) {
    throw new Error(
      `${where} "url" without user:password@ with auth ${auth} (user:password@ is for auth none; with basic the pair goes in its secret)`,
    );
  }
  const kind = kindField(fields.kind, where);
  return {
    name,
    url,
    auth,
    secret: secretOf(fields.secret, auth, where, rules),
    headers: headersField(fields.headers, where),
    alertmanagerUrl: httpUrlField(fields.alertmanager_url, `${where} "alertmanager_url"`, false),
    kind: kindOf(url, kind),
    description: descriptionOf(fields.description, where),
    isDefault: booleanField(fields.default, `${where} "default"`),
    allowedTenants: tenantsField(fields.allowed_tenants, where),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function httpUrlField(value: unknown, what: string, required: boolean): string | undefined {
  if (value === undefined && !required) return undefined;
  if (typeof value === "string") {
    try {
      const url = new URL(value.trim());
      if (url.protocol === "http:" || url.protocol === "https:") return value.trim();
    } catch {
      // Said below.
    }
  }
  throw new Error(`${what} as an http(s) URL`);
}

/** Default: SigV4 for an AMP URL (its host or its /workspaces/ws-… path says so), else none. */
function authOf(value: unknown, url: string, where: string): AuthMode {
  if (value === undefined) return kindOf(url, undefined) === "amp" ? "sigv4" : "none";
  const mode = AUTH_MODES.find((candidate) => typeof value === "string" && candidate === value.toLowerCase());
  if (mode === undefined) throw new Error(`${where} "auth" as one of ${AUTH_MODES.join(", ")}`);
  return mode;
}

function kindField(value: unknown, where: string): BackendKind | undefined {
  if (value === undefined) return undefined;
  const kind = BACKEND_KINDS.find(
    (candidate) => typeof value === "string" && candidate === value.toLowerCase(),
  );
  if (kind === undefined) throw new Error(`${where} "kind" as one of ${BACKEND_KINDS.join(", ")}`);
  return kind;
}

/** As PROMETHEUS_SECRET: basic and bearer need one, only they take one, and in Lambda it is kept in AWS. */
function secretOf(
  value: unknown,
  auth: AuthMode,
  where: string,
  rules: BackendRules,
): SecretSource | undefined {
  const needed = auth === "basic" || auth === "bearer";
  if (value === undefined) {
    if (needed) {
      throw new Error(
        `${where} "secret" with auth ${auth}: a Secrets Manager secret ARN or ssm:/parameter holding the ${auth === "basic" ? "user:password" : "token"}`,
      );
    }
    return undefined;
  }
  if (!needed)
    throw new Error(`${where} without "secret" with auth ${auth} (it is read with basic or bearer)`);
  if (typeof value !== "string" || value.trim() === "") throw new Error(`${where} "secret" as a string`);
  let source: SecretSource | undefined;
  try {
    source = secretSourceOf(value.trim(), rules.defaultRegion);
  } catch (error) {
    throw new Error(`${where} "secret" as ${(error as Error).message}`);
  }
  if (source !== undefined) return source;
  if (rules.inLambda) {
    throw new Error(
      `${where} "secret" as a Secrets Manager secret ARN or ssm:/parameter in Lambda, not the credentials themselves (they would sit in the function's configuration)`,
    );
  }
  // The value itself: checked now as it would be on the first call, never repeated.
  const problem = credentialsProblem(auth as "basic" | "bearer", value.trim());
  if (problem !== undefined) {
    throw new Error(`${where} "secret" as credentials an HTTP header can carry; the value given ${problem}`);
  }
  return { kind: "literal", value: value.trim(), setting: `BACKENDS ${where} "secret"` };
}

function headersField(value: unknown, where: string): Readonly<Record<string, string>> {
  if (value === undefined) return {};
  const text = typeof value === "string" ? value : isObject(value) ? JSON.stringify(value) : undefined;
  if (text === undefined) throw new Error(`${where} "headers" as a JSON object of names to values`);
  try {
    return parseHeaders(text);
  } catch (error) {
    throw new Error(`${where} "headers" with ${(error as Error).message}`);
  }
}

function descriptionOf(value: unknown, where: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.length > MAX_DESCRIPTION || /[\r\n]/.test(value)) {
    throw new Error(`${where} "description" as one line of at most ${MAX_DESCRIPTION} characters`);
  }
  return value.trim() === "" ? undefined : value.trim();
}

function booleanField(value: unknown, what: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== "boolean") throw new Error(`${what} as true or false`);
  return value;
}

/** allowed_tenants: each entry a tenant a caller can have (one outside the set could never be matched). */
function tenantsField(value: unknown, where: string): readonly string[] | undefined {
  if (value === undefined) return undefined;
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    value.some((tenant) => typeof tenant !== "string" || !isTenant(tenant.trim()))
  ) {
    throw new Error(`${where} "allowed_tenants" as a non-empty list of tenants, each ${TENANT_SET}`);
  }
  return [...new Set(value.map((tenant: string) => tenant.trim()))];
}

/** A backend as the tools use it: its secret is read (once per container) where it is kept. */
export interface Backend extends Omit<BackendSpec, "secret"> {
  secret?: Secret | undefined;
}
