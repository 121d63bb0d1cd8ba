/**
 * The rules between settings: what no setting can judge alone (schema.ts parses each). Each failure is
 * one ConfigError line naming the variable to fix; none quotes a secret or a header's value.
 */
import { readFileSync } from "node:fs";
import { posix } from "node:path";
import {
  ampRegionOfUrl,
  configuredRegions,
  parseWorkspaceEntry,
  workspaceIdFromUrl,
} from "../prometheus/access.js";
import { credentialsProblem } from "../prometheus/auth.js";
import { type BackendSpec, hasTenantPlaceholder, kindOf } from "../prometheus/backends.js";
import type { Regions } from "../prometheus/regions.js";
import { type SecretSource, secretSourceOf } from "../prometheus/secrets.js";
import { isTenant, TENANT_SET } from "../prometheus/tenants.js";
import { hasCredentials } from "../prometheus/urls.js";
import { parseBackends } from "./backends.js";
import { fail, failQuietly } from "./errors.js";
import type { Settings } from "./schema.js";
import type { Config, SessionStoreKind } from "./types.js";

/** A configured workspace's region must be one the function can call: its partition's. */
export function inPartition(name: string, raw: string, region: string, regions: Regions): void {
  if (!regions.has(region)) {
    fail(
      name,
      raw,
      `workspaces in the regions of the function's partition, ${regions.partition}: ${region} is not one of them`,
    );
  }
}

/** ALLOWED_WORKSPACES: a URL's or ARN's region must be one of the function's partition (an ARN's partition that one too). */
export function workspacesInPartition(entries: readonly string[], raw: string, regions: Regions): void {
  for (const entry of entries) {
    const ref = parseWorkspaceEntry(entry);
    if (ref?.region !== undefined) inPartition("ALLOWED_WORKSPACES", raw, ref.region, regions);
    if (ref?.partition !== undefined && ref.partition !== regions.partition) {
      fail(
        "ALLOWED_WORKSPACES",
        raw,
        `ARNs of the function's partition, ${regions.partition}: ${entry} is in ${ref.partition}`,
      );
    }
  }
}

/**
 * The effective ALLOWED_REGIONS: the list given (which must include AWS_REGION, the region of calls that
 * name none), then the configured workspaces' regions it lacks (PROMETHEUS_URL's host, ALLOWED_WORKSPACES
 * URLs and ARNs), so a workspace the deployment names is always reachable. Unset stays unset (any region).
 */
export function allowedRegionsOf(
  settings: Settings,
  raw: string | undefined,
  allowedWorkspaces: readonly string[],
): string[] | undefined {
  const listed = settings.ALLOWED_REGIONS;
  if (listed === undefined) return undefined;
  if (!listed.includes(settings.AWS_REGION)) {
    fail(
      "ALLOWED_REGIONS",
      raw ?? "",
      `a list that includes AWS_REGION (${settings.AWS_REGION}), the region of calls that name none`,
    );
  }
  const workspaceRegions = configuredRegions(settings.PROMETHEUS_URL, allowedWorkspaces);
  return [...new Set([...listed, ...workspaceRegions])];
}

/** JWT_SCOPES need JWT_ISSUER (auth=jwt). */
export function oauthOf(settings: Settings): Config["oauth"] {
  const issuer = settings.JWT_ISSUER;
  const scopes = settings.JWT_SCOPES;
  if (issuer === undefined) {
    if (scopes.length > 0) fail("JWT_SCOPES", scopes.join(" "), "JWT_ISSUER to be set as well");
    return undefined;
  }
  return { issuer, scopes };
}

/**
 * SESSION_STORE and SESSION_TABLE: a table means DynamoDB (as it always has); `dynamodb` without one
 * cannot work. Unset: a file locally, so restarting `npm start` strands no client; memory in Lambda.
 */
export function sessionStoreOf(settings: Settings, local: boolean): SessionStoreKind {
  const chosen = settings.SESSION_STORE ?? (local ? "file" : "memory");
  if (settings.SESSION_TABLE !== undefined) return "dynamodb";
  if (chosen === "dynamodb")
    fail("SESSION_STORE", "dynamodb", "SESSION_TABLE to be set as well, naming the table");
  return chosen;
}

/**
 * SESSION_DIR: in Lambda only /tmp is writable, and each container has its own (files there share nothing).
 * A directory under it, never /tmp itself: the file store takes every `<name>.json` in its directory for a
 * session file, and refuses a directory others may write (/tmp is 1777 wherever it is shared).
 */
export function sessionDirOf(sessionDir: string, inLambda: boolean, sessionStore: SessionStoreKind): string {
  if (inLambda && sessionStore === "file" && !/^\/tmp\/./.test(posix.normalize(sessionDir))) {
    fail(
      "SESSION_DIR",
      sessionDir,
      "a directory under /tmp with SESSION_STORE=file in Lambda, such as /tmp/sessions, not /tmp itself (the only writable one, and each container's own: sessions shared between containers need SESSION_TABLE)",
    );
  }
  return sessionDir;
}

/** PROMETHEUS_URL's user:password@ is for PROMETHEUS_AUTH=none alone. */
export function urlCredentialsRule(settings: Settings): void {
  const url = settings.PROMETHEUS_URL;
  const auth = settings.PROMETHEUS_AUTH;
  if (url !== undefined && auth !== "none" && hasCredentials(url)) {
    fail(
      "PROMETHEUS_URL",
      url,
      `no user:password@ with PROMETHEUS_AUTH=${auth}; user:password@ is for a plain Prometheus with PROMETHEUS_AUTH=none (with basic, the pair goes in PROMETHEUS_SECRET)`,
    );
  }
}

/**
 * PROMETHEUS_SECRET: `basic` and `bearer` need a secret, and only they take one; in Lambda it must be a
 * Secrets Manager secret or an SSM parameter (the value itself would sit in the function's
 * configuration). No message quotes a secret.
 */
export function upstreamSecretOf(settings: Settings, inLambda: boolean): SecretSource | undefined {
  const auth = settings.PROMETHEUS_AUTH;
  const text = settings.PROMETHEUS_SECRET;
  const needsSecret = auth === "basic" || auth === "bearer";
  if (text === undefined) {
    if (needsSecret)
      failQuietly(
        "PROMETHEUS_SECRET",
        `to be set with PROMETHEUS_AUTH=${auth}: a Secrets Manager secret ARN or ssm:/parameter holding the ${auth === "basic" ? "user:password" : "token"}`,
      );
    return undefined;
  }
  if (!needsSecret)
    failQuietly(
      "PROMETHEUS_SECRET",
      `to be unset with PROMETHEUS_AUTH=${auth} (it is read with basic or bearer)`,
    );
  let source: SecretSource | undefined;
  try {
    source = secretSourceOf(text, settings.AWS_REGION);
  } catch (error) {
    failQuietly("PROMETHEUS_SECRET", (error as Error).message);
  }
  if (source !== undefined) return source;
  if (inLambda) {
    failQuietly(
      "PROMETHEUS_SECRET",
      "a Secrets Manager secret ARN or ssm:/parameter in Lambda, not the credentials themselves (they would sit in the function's configuration)",
    );
  }
  // The value itself: checked now as it would be on the first call, never repeated.
  const problem = credentialsProblem(auth as "basic" | "bearer", text);
  if (problem !== undefined) {
    failQuietly("PROMETHEUS_SECRET", `credentials an HTTP header can carry; the value given ${problem}`);
  }
  return { kind: "literal", value: text };
}

/** Settings BACKENDS replaces: each backend has its own. */
const SINGLE_SERVER_SETTINGS = [
  "PROMETHEUS_URL",
  "PROMETHEUS_SECRET",
  "PROMETHEUS_HEADERS",
  "PROMETHEUS_KIND",
  "ALERTMANAGER_URL",
] as const;

/** BACKENDS' text: the value itself when it is a JSON object, else the file it names. */
function backendsText(raw: string): string {
  if (raw.startsWith("{")) return raw;
  try {
    return readFileSync(raw, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    const expected = `a JSON object, or the path of a readable file holding one (${code})`;
    // A value that is not path-like may be JSON gone wrong, with a secret in it: not repeated.
    if (/^[\w./~-]{1,300}$/.test(raw)) fail("BACKENDS", raw, expected);
    return failQuietly("BACKENDS", expected);
  }
}

/**
 * BACKENDS: a JSON object, or the path of a file holding one (relative to the working directory: the
 * function's root in Lambda). Refused beside the settings of one server (PROMETHEUS_AUTH may keep its
 * default, sigv4, which workspace ids use). No message quotes a secret or a header's value.
 */
export function backendsOf(
  settings: Settings,
  given: ReadonlySet<string>,
  inLambda: boolean,
): BackendSpec[] | undefined {
  const raw = settings.BACKENDS;
  if (raw === undefined) return undefined;
  const clash: string[] = SINGLE_SERVER_SETTINGS.filter((name) => given.has(name));
  if (given.has("PROMETHEUS_AUTH") && settings.PROMETHEUS_AUTH !== "sigv4") clash.push("PROMETHEUS_AUTH");
  if (clash.length > 0) {
    failQuietly(
      "BACKENDS",
      `${clash.join(", ")} unset: with BACKENDS each backend has its own url, auth, secret, headers, kind and alertmanager_url`,
    );
  }
  const text = backendsText(raw);
  try {
    return parseBackends(text, { inLambda, defaultRegion: settings.AWS_REGION });
  } catch (error) {
    return failQuietly("BACKENDS", (error as Error).message);
  }
}

/** The AMP workspaces backends name, as workspace URLs (their regions with them): the deployment may read them. */
export function backendWorkspaces(backends: readonly BackendSpec[], regions: Regions): string[] {
  const urls: string[] = [];
  for (const backend of backends) {
    if (workspaceIdFromUrl(backend.url) === undefined) continue;
    const region = ampRegionOfUrl(backend.url);
    if (region !== undefined)
      inPartition(`BACKENDS backend "${backend.name}" url`, backend.url, region, regions);
    urls.push(backend.url);
  }
  return urls;
}

/** PROMETHEUS_KIND, else what the URL says (no URL: AMP workspaces by id). */
export function prometheusKindOf(settings: Settings): Config["prometheusKind"] {
  return kindOf(settings.PROMETHEUS_URL, settings.PROMETHEUS_KIND);
}

/**
 * `{tenant}` in a URL's path (VictoriaMetrics cluster) and a backend's allowed_tenants both need
 * tenants from tokens (TENANT_CLAIM).
 */
export function tenantPlacesRule(
  tenants: Config["tenants"],
  prometheusUrl: string | undefined,
  backends: readonly BackendSpec[] | undefined,
): void {
  if (tenants !== undefined) return;
  if (prometheusUrl !== undefined && hasTenantPlaceholder(prometheusUrl)) {
    fail("PROMETHEUS_URL", prometheusUrl, "TENANT_CLAIM to be set as well: {tenant} is each caller's tenant");
  }
  for (const backend of backends ?? []) {
    if (hasTenantPlaceholder(backend.url)) {
      fail(
        "BACKENDS",
        backend.url,
        `TENANT_CLAIM to be set as well: {tenant} in backend "${backend.name}" is each caller's tenant`,
      );
    }
    if (backend.allowedTenants !== undefined) {
      failQuietly(
        "BACKENDS",
        `TENANT_CLAIM to be set as well: backend "${backend.name}" lists allowed_tenants`,
      );
    }
  }
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * TENANT_CLAIM (a JWT claim's name), TENANT_HEADER and ALLOWED_TENANTS. Tenants come from tokens the
 * JWT authorizer checked: JWT_ISSUER must be set (auth=jwt). PROMETHEUS_HEADERS (or a backend's
 * headers) may not set the tenant header as well.
 */
export function tenantsOf(
  settings: Settings,
  backends: readonly BackendSpec[] | undefined,
): Config["tenants"] {
  const { TENANT_CLAIM: claim, TENANT_HEADER: header, ALLOWED_TENANTS: allowed } = settings;
  if (claim === undefined) {
    if (header !== undefined) fail("TENANT_HEADER", header, "TENANT_CLAIM to be set as well");
    if (allowed.length > 0) fail("ALLOWED_TENANTS", allowed.join(","), "TENANT_CLAIM to be set as well");
    return undefined;
  }
  if (settings.JWT_ISSUER === undefined) {
    fail(
      "TENANT_CLAIM",
      claim,
      "JWT_ISSUER to be set as well (auth=jwt): a tenant is read from the caller's token",
    );
  }
  // A tenant outside the set is refused in every token: listing one could never let anybody in.
  const odd = allowed.find((tenant) => !isTenant(tenant));
  if (odd !== undefined) fail("ALLOWED_TENANTS", odd, `comma-separated tenants, each ${TENANT_SET}`);
  const name = (header ?? "X-Scope-OrgID").toLowerCase();
  if (!HEADER_NAME.test(name)) fail("TENANT_HEADER", name, "a header name such as X-Scope-OrgID");
  if (Object.hasOwn(settings.PROMETHEUS_HEADERS, name)) {
    fail("PROMETHEUS_HEADERS", name, `no ${name}: with TENANT_CLAIM each caller's token names it`);
  }
  const setter = backends?.find((backend) => Object.hasOwn(backend.headers, name));
  if (setter !== undefined) {
    fail(
      "BACKENDS",
      name,
      `no ${name} in backend "${setter.name}" headers: with TENANT_CLAIM each caller's token names it`,
    );
  }
  return { claim, header: name, allowed };
}
