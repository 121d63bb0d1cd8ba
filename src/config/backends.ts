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
 * no name may start with it. Each entry's fields are backendSchema.ts's; what they say together is here.
 */
import { type AuthMode, credentialsProblem } from "../prometheus/auth.js";
import { type BackendSpec, kindOf } from "../prometheus/backends.js";
import { type SecretSource, secretSourceOf } from "../prometheus/secrets.js";
import { hasCredentials } from "../prometheus/urls.js";
import { type BackendEntry, type BackendField, backendEntrySchema, isObject } from "./backendSchema.js";
import { Refusal, refuse } from "./fields.js";

/** A backend's name: what a call passes as workspace_id, so never an AMP workspace id's `ws-`. */
const BACKEND_NAME = /^(?![Ww][Ss]-)[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;
export const MAX_BACKENDS = 50;

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
  try {
    const { entry, auth, secret } = judged(fields, rules, `BACKENDS ${where} "secret"`);
    return {
      name,
      url: entry.url,
      auth,
      secret,
      headers: entry.headers,
      alertmanagerUrl: entry.alertmanager_url,
      kind: kindOf(entry.url, entry.kind),
      description: entry.description,
      isDefault: entry.default,
      allowedTenants: entry.allowed_tenants,
    };
  } catch (error) {
    if (error instanceof Refusal) throw new Error(`${where} ${error.expected}`);
    throw error;
  }
}

/** An entry and what its fields say together: the auth it uses and where its secret is kept. */
interface Judged {
  entry: BackendEntry;
  auth: AuthMode;
  secret?: SecretSource | undefined;
}

/**
 * The order an entry is judged in, each field alone and then the rules that read it with the fields
 * before it: the first problem in this order is the one an error names, whatever else is wrong.
 */
const JUDGING_ORDER: readonly BackendField[] = [
  "url",
  "auth",
  "kind",
  "secret",
  "headers",
  "alertmanager_url",
  "description",
  "default",
  "allowed_tenants",
];

/** The entry (the schema), and its auth and secret (the rules between fields); refuses the first problem. */
function judged(fields: unknown, rules: BackendRules, setting: string): Judged {
  const schema = backendEntrySchema();
  const parsed = schema.safeParse(fields);
  if (!parsed.success) {
    const whole = parsed.error.issues.find((issue) => issue.path.length === 0);
    if (whole?.code === "unrecognized_keys") {
      refuse(`with only the fields ${Object.keys(schema.shape).join(", ")}; not ${whole.keys.join(", ")}`);
    }
    if (whole !== undefined) refuse('as a JSON object with at least "url"');
  }
  // A bad field: the fields before it are read again alone, so a rule between them is named first.
  const raw = fields as Record<string, unknown>;
  const entry = (parsed.success ? parsed.data : {}) as BackendEntry;
  const together = { entry } as Judged;
  for (const field of JUDGING_ORDER) {
    if (!parsed.success) (entry as Record<string, unknown>)[field] = alone(field, raw[field]);
    RULES_AFTER[field]?.(together, raw, rules, setting);
  }
  return together;
}

/** One field read alone, or its refusal. */
function alone(field: BackendField, value: unknown): unknown {
  const parsed = backendEntrySchema().shape[field].safeParse(value);
  return parsed.success ? parsed.data : refuse(parsed.error.issues[0]?.message ?? `"${field}"`);
}

type Rule = (judged: Judged, raw: Record<string, unknown>, rules: BackendRules, setting: string) => void;

/** The rules between fields, each after the last field it reads (JUDGING_ORDER). */
const RULES_AFTER: Partial<Record<BackendField, Rule>> = {
  auth: authRule,
  kind: secretPresenceRule,
  secret: secretSourceRule,
};

/** Default: SigV4 for an AMP URL (its host or its /workspaces/ws-… path says so), else none. */
function authRule(judged: Judged): void {
  const { url, auth } = judged.entry;
  judged.auth = auth ?? (kindOf(url, undefined) === "amp" ? "sigv4" : "none");
  if (judged.auth !== "none" && hasCredentials(url)) {
    refuse(
      `"url" without user:password@ with auth ${judged.auth} (user:password@ is for auth none; with basic the pair goes in its secret)`,
    );
  }
}

/** As PROMETHEUS_SECRET: basic and bearer need one, and only they take one. */
function secretPresenceRule(judged: Judged, raw: Record<string, unknown>): void {
  const { auth } = judged;
  const needed = auth === "basic" || auth === "bearer";
  if (raw.secret === undefined && needed) {
    refuse(
      `"secret" with auth ${auth}: a Secrets Manager secret ARN or ssm:/parameter holding the ${auth === "basic" ? "user:password" : "token"}`,
    );
  }
  if (raw.secret !== undefined && !needed) {
    refuse(`without "secret" with auth ${auth} (it is read with basic or bearer)`);
  }
}

/** Where the secret is kept; in Lambda, in AWS (never the function's configuration). */
function secretSourceRule(judged: Judged, _raw: unknown, rules: BackendRules, setting: string): void {
  const value = judged.entry.secret;
  if (value === undefined) return;
  let source: SecretSource | undefined;
  try {
    source = secretSourceOf(value, rules.defaultRegion);
  } catch (error) {
    refuse(`"secret" as ${(error as Error).message}`);
  }
  if (source !== undefined) {
    judged.secret = source;
    return;
  }
  if (rules.inLambda) {
    refuse(
      `"secret" as a Secrets Manager secret ARN or ssm:/parameter in Lambda, not the credentials themselves (they would sit in the function's configuration)`,
    );
  }
  // The value itself: checked now as it would be on the first call, never repeated.
  const problem = credentialsProblem(judged.auth as "basic" | "bearer", value);
  if (problem !== undefined) {
    refuse(`"secret" as credentials an HTTP header can carry; the value given ${problem}`);
  }
  judged.secret = { kind: "literal", value, setting };
}
