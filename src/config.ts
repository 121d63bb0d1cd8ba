import { readFileSync } from "node:fs";
import { posix } from "node:path";
import { LogLevel as LOG_LEVEL } from "@aws-lambda-powertools/logger";
import catalog from "../tools/catalog.json" with { type: "json" };
import {
  ampRegionOfUrl,
  configuredRegions,
  parseWorkspaceEntry,
  sigv4Mismatch,
  workspaceIdFromUrl,
} from "./prometheus/access.js";
import { type AuthMode, credentialsProblem } from "./prometheus/auth.js";
import {
  BACKEND_KINDS,
  type BackendKind,
  type BackendSpec,
  hasTenantPlaceholder,
  kindOf,
  parseBackends,
} from "./prometheus/backends.js";
import { parseHeaders } from "./prometheus/headers.js";
import { REGION_PATTERN, Regions } from "./prometheus/regions.js";
import { type SecretSource, secretSourceOf } from "./prometheus/secrets.js";
import { isTenant, TENANT_SET } from "./prometheus/tenants.js";
import { hasCredentials, redactCredentials } from "./prometheus/urls.js";

type SessionMode = "optional" | "required" | "off";
type PrometheusAuth = AuthMode;
/** Where sessions live: this process's memory, one file per session on disk, or a DynamoDB table. */
type SessionStoreKind = "memory" | "file" | "dynamodb";
/** Powertools Logger's levels, upper case. */
type LogLevel = (typeof LOG_LEVEL)[keyof typeof LOG_LEVEL];

export interface Config {
  prometheusUrl: string | undefined;
  prometheusAuth: PrometheusAuth;
  /**
   * PROMETHEUS_SECRET (`basic` and `bearer` only): a Secrets Manager secret's ARN, an SSM parameter
   * (`ssm:/path`), or, where no Lambda runs, the credentials themselves (with a warning).
   */
  prometheusSecret: SecretSource | undefined;
  /** PROMETHEUS_HEADERS: extra headers of every Prometheus and Alertmanager request, names lower case. */
  prometheusHeaders: Readonly<Record<string, string>>;
  /** PROMETHEUS_KIND, else what PROMETHEUS_URL says (amp for AMP's, victoriametrics for vmselect's path). */
  prometheusKind: BackendKind;
  /**
   * BACKENDS (src/prometheus/backends.ts): several named servers; the PROMETHEUS_* settings and
   * ALERTMANAGER_URL are then unset. Undefined: the one server PROMETHEUS_URL names, as before.
   */
  backends: readonly BackendSpec[] | undefined;
  /**
   * BACKENDS and no AMP: no backend signs with SigV4 or is an AMP workspace, no AMP_ENDPOINT, no
   * ALLOWED_WORKSPACES, no PYTHON_COMPAT. workspace_id then takes a backend's name only, and the tools
   * take no region or profile.
   */
  backendsOnly: boolean;
  /**
   * `ALLOWED_WORKSPACES`: the workspaces the function may read besides the one PROMETHEUS_URL names;
   * with either, no other workspace is read (see README "Configuration"). Each entry as given (trimmed,
   * without repeats): a workspace id (in the stack's region), a workspace URL
   * (`https://aps-workspaces.<region>.amazonaws.com/workspaces/ws-…/`) or a workspace ARN
   * (`arn:<partition>:aps:<region>:<account>:workspace/ws-…`); URLs and ARNs carry their region.
   */
  allowedWorkspaces: readonly string[];
  /**
   * `ALLOWED_REGIONS`: the only AWS regions the tools may call (a deployment sets its stack's region
   * and its `regions` parameter, the regions its role is granted), plus the regions of PROMETHEUS_URL
   * (an AMP URL's host) and of ALLOWED_WORKSPACES URLs and ARNs; undefined: any of the partition's.
   */
  allowedRegions: readonly string[] | undefined;
  awsRegion: string;
  /**
   * `JWT_ISSUER` / `JWT_SCOPES`: set when the API's authorizer checks JWTs (`auth=jwt`); the function
   * then publishes where to sign in (OAuth protected resource metadata). Undefined otherwise.
   */
  oauth: { issuer: string; scopes: readonly string[] } | undefined;
  ampEndpoint: string | undefined;
  /**
   * A plain Prometheus, not AMP: PROMETHEUS_URL is set, names no AMP workspace (`…/workspaces/ws-…/`),
   * PROMETHEUS_AUTH is not sigv4, no AMP_ENDPOINT is set, and PYTHON_COMPAT is off. The tools then take
   * no workspace_id, region or profile (passed anyway, they are ignored), GetAvailableWorkspaces is
   * left out unless TOOLS names it, and descriptions speak of the Prometheus server.
   */
  plainPrometheus: boolean;
  /**
   * SESSION_STORE: `dynamodb` whenever SESSION_TABLE is set; else `file` under `npm start` and
   * `invoke local` (a restart loses no session), `memory` in Lambda.
   */
  sessionStore: SessionStoreKind;
  /** SESSION_DIR: the file store's directory (default `.local/sessions` under the working directory). */
  sessionDir: string;
  sessionTable: string | undefined;
  dynamodbEndpoint: string | undefined;
  sessions: SessionMode;
  sessionTtlSeconds: number;
  pythonCompat: boolean;
  allowedOrigins: readonly string[];
  maxBodyBytes: number;
  /**
   * MAX_RESULT_TOKENS: the model's budget for one tool result, in tokens as the estimator counts them;
   * larger results are cut (see README "Large results").
   */
  maxResultTokens: number;
  /**
   * MAX_RESULT_BYTES: a hard cap on a tool result's text in bytes, beside the token budget; undefined
   * (unset) is the default cap of src/results/inlineSize.ts, what Claude Code keeps inline.
   */
  maxResultBytes: number | undefined;
  logLevel: LogLevel;
  /** METRICS: CloudWatch metrics (EMF on the request's log line) on or off; default on in Lambda, off locally. */
  metrics: boolean;
  /** METRICS_NAMESPACE: the CloudWatch namespace of the metrics. */
  metricsNamespace: string;
  /**
   * TRACING: X-Ray subsegments (Powertools Tracer) for each request, its tool calls and its AMP,
   * Prometheus and DynamoDB calls. Off (the default): the tracer is never loaded.
   */
  tracing: boolean;
  /** SERVICE_NAME: the `service` of every log line and metric. */
  serviceName: string;
  /** Running as a deployed Lambda (not `serverless offline` / `invoke local`, not a test). */
  inLambda: boolean;
  /** Running under `serverless offline` (`npm start`): Host headers are checked against DNS rebinding. */
  isOffline: boolean;
  /** Running under `serverless invoke local`. */
  isLocal: boolean;
  /**
   * TOOLS: the names of the tools served, in tools/list order (the five first). Default every tool;
   * the five of the Python server under PYTHON_COMPAT, unless TOOLS is set.
   */
  tools: readonly string[];
  /** ALERTMANAGER_URL: the Alertmanager ListSilences reads for a plain Prometheus. */
  alertmanagerUrl: string | undefined;
  /**
   * TENANT_CLAIM, TENANT_HEADER, ALLOWED_TENANTS: each caller's tenant is its JWT's claim, sent as the
   * tenant header (lower case; default `x-scope-orgid`) on its upstream requests; undefined: no tenants.
   */
  tenants: { claim: string; header: string; allowed: readonly string[] } | undefined;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS: readonly LogLevel[] = Object.values(LOG_LEVEL);

export const DEFAULT_METRICS_NAMESPACE = "PrometheusMcp";
export const DEFAULT_SERVICE_NAME = "prometheus-mcp-lambda";

/** The value is quoted with any `user:password@` of a URL cut out: this line goes to the log. */
function fail(variable: string, value: string, expected: string): never {
  throw new ConfigError(
    `Invalid configuration: ${variable}=${JSON.stringify(redactCredentials(value))} (expected ${expected})`,
  );
}

/** As `fail`, for a setting whose value must never be repeated (it may hold a credential). */
function failQuietly(variable: string, expected: string): never {
  throw new ConfigError(`Invalid configuration: ${variable} (expected ${expected})`);
}

function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const match = allowed.find((option) => option.toLowerCase() === raw.toLowerCase());
  return match ?? fail(name, raw, `one of ${allowed.join(", ")}`);
}

function wholeNumber(env: Env, name: string, fallback: number, range: { min?: number; max: number }): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const min = range.min ?? 1;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > range.max) {
    fail(name, raw, `a whole number from ${min} to ${range.max}`);
  }
  return Number(raw);
}

function optionalWholeNumber(
  env: Env,
  name: string,
  range: { min?: number; max: number },
): number | undefined {
  return read(env, name) === undefined ? undefined : wholeNumber(env, name, 0, range);
}

function boolean(env: Env, name: string): boolean {
  const raw = read(env, name);
  if (raw === undefined) return false;
  if (/^(true|1|yes)$/i.test(raw)) return true;
  if (/^(false|0|no)$/i.test(raw)) return false;
  return fail(name, raw, "true or false");
}

/** `on`/`off` (also true/false, 1/0, yes/no). */
function onOff(env: Env, name: string, fallback: boolean): boolean {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (/^(on|true|1|yes)$/i.test(raw)) return true;
  if (/^(off|false|0|no)$/i.test(raw)) return false;
  return fail(name, raw, "on or off");
}

/** A CloudWatch namespace or a service name: printable ASCII CloudWatch accepts, not AWS's own namespaces. */
function metricName(env: Env, name: string, fallback: string): string {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!/^[A-Za-z0-9._\-/#: ]{1,255}$/.test(raw) || raw.startsWith("AWS/")) {
    fail(name, raw, "1 to 255 letters, digits, spaces or . _ - / # :, not starting with AWS/");
  }
  return raw;
}

function httpUrl(env: Env, name: string): string | undefined {
  const raw = read(env, name);
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail(name, raw, "an http(s) URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") fail(name, raw, "an http(s) URL");
  return raw;
}

const WORKSPACE_ENTRIES =
  "a comma-separated list of AMP workspace ids such as ws-12345678-abcd-1234-abcd-123456789012, " +
  "workspace URLs such as https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-…/ " +
  "or workspace ARNs such as arn:aws:aps:eu-west-1:123456789012:workspace/ws-…";

/**
 * `ALLOWED_WORKSPACES`: ids, workspace URLs and workspace ARNs, comma-separated (see parseWorkspaceEntry).
 * A URL's or ARN's region must be one of the function's partition (an ARN's partition that one too).
 */
function workspaceEntries(env: Env, name: string, regions: Regions): string[] {
  const raw = read(env, name);
  if (raw === undefined) return [];
  const entries = raw
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  for (const entry of entries) {
    const ref = parseWorkspaceEntry(entry);
    if (ref === undefined) fail(name, raw, WORKSPACE_ENTRIES);
    if (ref.region !== undefined) inPartition(name, raw, ref.region, regions);
    if (ref.partition !== undefined && ref.partition !== regions.partition) {
      fail(
        name,
        raw,
        `ARNs of the function's partition, ${regions.partition}: ${entry} is in ${ref.partition}`,
      );
    }
  }
  return [...new Set(entries)];
}

/** A configured workspace's region must be one the function can call: its partition's. */
function inPartition(name: string, raw: string, region: string, regions: Regions): void {
  if (!regions.has(region)) {
    fail(
      name,
      raw,
      `workspaces in the regions of the function's partition, ${regions.partition}: ${region} is not one of them`,
    );
  }
}

function origins(env: Env, name: string): string[] {
  const raw = read(env, name);
  if (raw === undefined) return [];
  return raw
    .split(",")
    .map((origin) => origin.trim())
    .filter((origin) => origin !== "")
    .map((origin) => {
      if (origin === "*") return origin;
      try {
        return new URL(origin).origin;
      } catch {
        return fail(name, raw, "a comma-separated list of origins such as https://app.example.com");
      }
    });
}

/** `ALLOWED_REGIONS`: a comma-separated list of regions that must include AWS_REGION; unset or empty: undefined. */
function regionList(env: Env, name: string, awsRegion: string): string[] | undefined {
  const raw = read(env, name);
  if (raw === undefined) return undefined;
  const regions = raw
    .split(",")
    .map((region) => region.trim())
    .filter((region) => region !== "");
  if (regions.length === 0) return undefined;
  for (const region of regions) {
    if (!REGION_PATTERN.test(region))
      fail(name, raw, "a comma-separated list of AWS regions such as us-east-1,eu-west-1");
  }
  if (!regions.includes(awsRegion)) {
    fail(name, raw, `a list that includes AWS_REGION (${awsRegion}), the region of calls that name none`);
  }
  return [...new Set(regions)];
}

/**
 * The effective ALLOWED_REGIONS: the list given, then the configured workspaces' regions (PROMETHEUS_URL's
 * host, ALLOWED_WORKSPACES URLs and ARNs) it lacks, so a workspace the deployment names is always
 * reachable in its region. Unset stays unset (any region of the partition).
 */
function withWorkspaceRegions(
  listed: string[] | undefined,
  workspaceRegions: readonly string[],
): string[] | undefined {
  return listed === undefined ? undefined : [...new Set([...listed, ...workspaceRegions])];
}

/** Every tool by group, in tools/list order (tools/catalog.json). */
const TOOL_GROUPS: Readonly<Record<string, readonly string[]>> = catalog.groups;
const ALL_TOOLS = Object.values(TOOL_GROUPS).flat();

/** The tool that lists AMP workspaces: of no use with a plain Prometheus. */
const WORKSPACE_LISTING = "GetAvailableWorkspaces";

/**
 * TOOLS: tool names and groups (`core`, `discovery`, `alerting`, `charts`, `all`), comma-separated, as the
 * served names in tools/list order. Unset: all, or core under PYTHON_COMPAT (a Python client sees the five).
 */
function toolNames(env: Env, name: string, pythonCompat: boolean, plainPrometheus: boolean): string[] {
  const raw = read(env, name);
  const entries = (raw ?? (pythonCompat ? "core" : "all"))
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  const chosen = new Set<string>();
  for (const entry of entries) {
    const group = entry === "all" ? ALL_TOOLS : TOOL_GROUPS[entry];
    // A plain Prometheus has no workspaces to list: only naming the tool itself serves it.
    const fromGroup = (tool: string) => !(plainPrometheus && tool === WORKSPACE_LISTING);
    if (group !== undefined) for (const tool of group.filter(fromGroup)) chosen.add(tool);
    else if (ALL_TOOLS.includes(entry)) chosen.add(entry);
    else {
      fail(
        name,
        raw ?? "",
        `tool names or groups, comma-separated: ${entry} is neither (groups: ${[...Object.keys(TOOL_GROUPS), "all"].join(", ")}; tools: ${ALL_TOOLS.join(", ")})`,
      );
    }
  }
  if (chosen.size === 0) fail(name, raw ?? "", "at least one tool name or group");
  return ALL_TOOLS.filter((tool) => chosen.has(tool));
}

/** JWT_ISSUER (an http(s) URL without a trailing slash: the authorizer compares `iss` exactly) and JWT_SCOPES. */
function oauthSettings(env: Env): Config["oauth"] {
  const issuer = httpUrl(env, "JWT_ISSUER");
  const scopes = (read(env, "JWT_SCOPES") ?? "").split(/[\s,]+/).filter((scope) => scope !== "");
  if (issuer === undefined) {
    if (scopes.length > 0) fail("JWT_SCOPES", scopes.join(" "), "JWT_ISSUER to be set as well");
    return undefined;
  }
  if (issuer.endsWith("/")) {
    fail("JWT_ISSUER", issuer, "the issuer exactly as tokens name it (`iss`), without a trailing slash");
  }
  return { issuer, scopes: [...new Set(scopes)] };
}

/** SESSION_DIR's default, relative to the working directory (the project's, under `npm start`). */
export const DEFAULT_SESSION_DIR = ".local/sessions";

/**
 * SESSION_STORE and SESSION_TABLE: a table means DynamoDB (as it always has); `dynamodb` without one
 * cannot work. Unset: a file locally, so restarting `npm start` strands no client; memory in Lambda.
 */
function sessionStoreOf(env: Env, local: boolean): SessionStoreKind {
  const table = read(env, "SESSION_TABLE");
  const chosen = oneOf(
    env,
    "SESSION_STORE",
    ["memory", "file", "dynamodb"] as const,
    local ? "file" : "memory",
  );
  if (table !== undefined) return "dynamodb";
  if (chosen === "dynamodb")
    fail("SESSION_STORE", "dynamodb", "SESSION_TABLE to be set as well, naming the table");
  return chosen;
}

/**
 * PROMETHEUS_AUTH and PROMETHEUS_SECRET: `basic` and `bearer` need a secret, and only they take one;
 * in Lambda it must be a Secrets Manager secret or an SSM parameter (the value itself would sit in the
 * function's configuration). The URL's user:password@ is for `none` alone. No message quotes a secret.
 */
function upstreamAuthOf(
  env: Env,
  prometheusUrl: string | undefined,
  inLambda: boolean,
  awsRegion: string,
): { prometheusAuth: PrometheusAuth; prometheusSecret: SecretSource | undefined } {
  const prometheusAuth = oneOf(
    env,
    "PROMETHEUS_AUTH",
    ["sigv4", "none", "basic", "bearer"] as const,
    "sigv4",
  );
  if (prometheusUrl !== undefined && prometheusAuth !== "none" && hasCredentials(prometheusUrl)) {
    fail(
      "PROMETHEUS_URL",
      prometheusUrl,
      `no user:password@ with PROMETHEUS_AUTH=${prometheusAuth}; user:password@ is for a plain Prometheus with PROMETHEUS_AUTH=none (with basic, the pair goes in PROMETHEUS_SECRET)`,
    );
  }
  const text = read(env, "PROMETHEUS_SECRET");
  const needsSecret = prometheusAuth === "basic" || prometheusAuth === "bearer";
  if (text === undefined) {
    if (needsSecret)
      failQuietly(
        "PROMETHEUS_SECRET",
        `to be set with PROMETHEUS_AUTH=${prometheusAuth}: a Secrets Manager secret ARN or ssm:/parameter holding the ${prometheusAuth === "basic" ? "user:password" : "token"}`,
      );
    return { prometheusAuth, prometheusSecret: undefined };
  }
  if (!needsSecret)
    failQuietly(
      "PROMETHEUS_SECRET",
      `to be unset with PROMETHEUS_AUTH=${prometheusAuth} (it is read with basic or bearer)`,
    );
  let source: SecretSource | undefined;
  try {
    source = secretSourceOf(text, awsRegion);
  } catch (error) {
    failQuietly("PROMETHEUS_SECRET", (error as Error).message);
  }
  if (source !== undefined) return { prometheusAuth, prometheusSecret: source };
  if (inLambda) {
    failQuietly(
      "PROMETHEUS_SECRET",
      "a Secrets Manager secret ARN or ssm:/parameter in Lambda, not the credentials themselves (they would sit in the function's configuration)",
    );
  }
  // The value itself: checked now as it would be on the first call, never repeated.
  const problem = credentialsProblem(prometheusAuth as "basic" | "bearer", text);
  if (problem !== undefined) {
    failQuietly("PROMETHEUS_SECRET", `credentials an HTTP header can carry; the value given ${problem}`);
  }
  return { prometheusAuth, prometheusSecret: { kind: "literal", value: text } };
}

/** PROMETHEUS_HEADERS, parsed (see src/prometheus/headers.ts); none when unset. */
function headersOf(env: Env): Readonly<Record<string, string>> {
  const text = read(env, "PROMETHEUS_HEADERS");
  if (text === undefined) return {};
  try {
    return parseHeaders(text);
  } catch (error) {
    return failQuietly("PROMETHEUS_HEADERS", (error as Error).message);
  }
}

/**
 * SESSION_DIR: in Lambda only /tmp is writable, and each container has its own (files there share nothing).
 * A directory under it, never /tmp itself: the file store takes every `<name>.json` in its directory for a
 * session file, and refuses a directory others may write (/tmp is 1777 wherever it is shared).
 */
function sessionDirOf(env: Env, inLambda: boolean, sessionStore: SessionStoreKind): string {
  const sessionDir = read(env, "SESSION_DIR") ?? DEFAULT_SESSION_DIR;
  if (inLambda && sessionStore === "file" && !/^\/tmp\/./.test(posix.normalize(sessionDir))) {
    fail(
      "SESSION_DIR",
      sessionDir,
      "a directory under /tmp with SESSION_STORE=file in Lambda, such as /tmp/sessions, not /tmp itself (the only writable one, and each container's own: sessions shared between containers need SESSION_TABLE)",
    );
  }
  return sessionDir;
}

/** Reads and validates the environment once, at cold start. Throws one ConfigError line naming the variable. */
export function loadConfig(env: Env = process.env): Config {
  const awsRegion = read(env, "AWS_REGION") ?? "us-east-1";
  if (!REGION_PATTERN.test(awsRegion)) fail("AWS_REGION", awsRegion, "an AWS region such as us-east-1");
  const isOffline = read(env, "IS_OFFLINE") !== undefined;
  const isLocal = read(env, "IS_LOCAL") !== undefined;
  const prometheusUrl = httpUrl(env, "PROMETHEUS_URL");
  const inLambda = read(env, "AWS_LAMBDA_FUNCTION_NAME") !== undefined && !isOffline && !isLocal;
  const { prometheusAuth, prometheusSecret } = upstreamAuthOf(env, prometheusUrl, inLambda, awsRegion);
  const prometheusHeaders = headersOf(env);
  const regions = new Regions(awsRegion);
  const urlRegion = ampRegionOfUrl(prometheusUrl);
  if (prometheusUrl !== undefined && urlRegion !== undefined) {
    inPartition("PROMETHEUS_URL", prometheusUrl, urlRegion, regions);
  }
  const backends = backendsOf(env, inLambda, awsRegion);
  const listedWorkspaces = workspaceEntries(env, "ALLOWED_WORKSPACES", regions);
  const allowedWorkspaces = [...listedWorkspaces, ...backendWorkspaces(backends ?? [], regions)];
  const pythonCompat = boolean(env, "PYTHON_COMPAT");
  const sessionStore = sessionStoreOf(env, isOffline || isLocal);
  const sessionDir = sessionDirOf(env, inLambda, sessionStore);
  const ampEndpoint = httpUrl(env, "AMP_ENDPOINT");
  // An AMP control-plane endpoint says workspaces are in play (a local stand-in of AMP beside the URL).
  const plainPrometheus =
    prometheusUrl !== undefined &&
    workspaceIdFromUrl(prometheusUrl) === undefined &&
    prometheusAuth !== "sigv4" &&
    ampEndpoint === undefined &&
    !pythonCompat;
  const backendsOnly =
    (backends?.every((backend) => backend.auth !== "sigv4" && backend.kind !== "amp") ?? false) &&
    ampEndpoint === undefined &&
    listedWorkspaces.length === 0 &&
    !pythonCompat;
  const tenants = tenantsOf(env, prometheusHeaders, backends);
  tenantPlacesOf(tenants, prometheusUrl, backends);
  return {
    prometheusUrl,
    prometheusAuth,
    prometheusSecret,
    prometheusHeaders,
    prometheusKind: prometheusKindOf(env, prometheusUrl),
    backends,
    backendsOnly,
    allowedWorkspaces,
    allowedRegions: withWorkspaceRegions(
      regionList(env, "ALLOWED_REGIONS", awsRegion),
      configuredRegions(prometheusUrl, allowedWorkspaces),
    ),
    awsRegion,
    oauth: oauthSettings(env),
    ampEndpoint,
    plainPrometheus,
    sessionStore,
    sessionDir,
    sessionTable: read(env, "SESSION_TABLE"),
    dynamodbEndpoint: httpUrl(env, "DYNAMODB_ENDPOINT"),
    sessions: oneOf(env, "SESSIONS", ["optional", "required", "off"] as const, "optional"),
    sessionTtlSeconds: wholeNumber(env, "SESSION_TTL_SECONDS", 86_400, { max: 31_536_000 }),
    pythonCompat,
    allowedOrigins: origins(env, "ALLOWED_ORIGINS"),
    maxBodyBytes: wholeNumber(env, "MAX_BODY_BYTES", 1_048_576, { max: 6_291_456 }),
    maxResultTokens: wholeNumber(env, "MAX_RESULT_TOKENS", 20_000, { min: 1_000, max: 6_000_000 }),
    maxResultBytes: optionalWholeNumber(env, "MAX_RESULT_BYTES", { min: 1_000, max: 6_000_000 }),
    logLevel: oneOf(env, "LOG_LEVEL", LOG_LEVELS, "INFO"),
    // A person reads local logs: the CloudWatch metrics document would be most of every line.
    metrics: onOff(env, "METRICS", !(isOffline || isLocal)),
    metricsNamespace: metricName(env, "METRICS_NAMESPACE", DEFAULT_METRICS_NAMESPACE),
    tracing: onOff(env, "TRACING", false),
    serviceName: metricName(env, "SERVICE_NAME", DEFAULT_SERVICE_NAME),
    inLambda,
    isOffline,
    isLocal,
    tools: toolNames(env, "TOOLS", pythonCompat, plainPrometheus),
    alertmanagerUrl: httpUrl(env, "ALERTMANAGER_URL"),
    tenants,
  };
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Settings BACKENDS replaces: each backend has its own. */
const SINGLE_SERVER_SETTINGS = [
  "PROMETHEUS_URL",
  "PROMETHEUS_SECRET",
  "PROMETHEUS_HEADERS",
  "PROMETHEUS_KIND",
  "ALERTMANAGER_URL",
] as const;

/**
 * BACKENDS: a JSON object, or the path of a file holding one (relative to the working directory: the
 * function's root in Lambda). Refused beside the settings of one server (PROMETHEUS_AUTH may keep its
 * default, sigv4, which workspace ids use). No message quotes a secret or a header's value.
 */
function backendsOf(env: Env, inLambda: boolean, awsRegion: string): BackendSpec[] | undefined {
  const raw = read(env, "BACKENDS");
  if (raw === undefined) return undefined;
  const clash = [
    ...SINGLE_SERVER_SETTINGS.filter((name) => read(env, name) !== undefined),
    ...(read(env, "PROMETHEUS_AUTH") !== undefined && read(env, "PROMETHEUS_AUTH")?.toLowerCase() !== "sigv4"
      ? ["PROMETHEUS_AUTH"]
      : []),
  ];
  if (clash.length > 0) {
    failQuietly(
      "BACKENDS",
      `${clash.join(", ")} unset: with BACKENDS each backend has its own url, auth, secret, headers, kind and alertmanager_url`,
    );
  }
  let text = raw;
  if (!raw.startsWith("{")) {
    try {
      text = readFileSync(raw, "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
      const expected = `a JSON object, or the path of a readable file holding one (${code})`;
      // A value that is not path-like may be JSON gone wrong, with a secret in it: not repeated.
      if (/^[\w./~-]{1,300}$/.test(raw)) fail("BACKENDS", raw, expected);
      failQuietly("BACKENDS", expected);
    }
  }
  try {
    return parseBackends(text, { inLambda, defaultRegion: awsRegion });
  } catch (error) {
    return failQuietly("BACKENDS", (error as Error).message);
  }
}

/** The AMP workspaces backends name, as workspace URLs (their regions with them): the deployment may read them. */
function backendWorkspaces(backends: readonly BackendSpec[], regions: Regions): string[] {
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

/** PROMETHEUS_KIND (one of BACKEND_KINDS), else what the URL says (no URL: AMP workspaces by id). */
function prometheusKindOf(env: Env, url: string | undefined): BackendKind {
  const declared = read(env, "PROMETHEUS_KIND");
  return kindOf(
    url,
    declared === undefined ? undefined : oneOf(env, "PROMETHEUS_KIND", BACKEND_KINDS, "prometheus"),
  );
}

/**
 * `{tenant}` in a URL's path (VictoriaMetrics cluster) and a backend's allowed_tenants both need
 * tenants from tokens (TENANT_CLAIM).
 */
function tenantPlacesOf(
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

/**
 * TENANT_CLAIM (a JWT claim's name), TENANT_HEADER and ALLOWED_TENANTS. Tenants come from tokens the
 * JWT authorizer checked: JWT_ISSUER must be set (auth=jwt). PROMETHEUS_HEADERS (or a backend's
 * headers) may not set the tenant header as well.
 */
function tenantsOf(
  env: Env,
  prometheusHeaders: Readonly<Record<string, string>>,
  backends: readonly BackendSpec[] | undefined,
): Config["tenants"] {
  const claim = read(env, "TENANT_CLAIM");
  const header = read(env, "TENANT_HEADER");
  const allowed = [
    ...new Set((read(env, "ALLOWED_TENANTS") ?? "").split(",").map((entry) => entry.trim())),
  ].filter((entry) => entry !== "");
  if (claim === undefined) {
    if (header !== undefined) fail("TENANT_HEADER", header, "TENANT_CLAIM to be set as well");
    if (allowed.length > 0) fail("ALLOWED_TENANTS", allowed.join(","), "TENANT_CLAIM to be set as well");
    return undefined;
  }
  if (read(env, "JWT_ISSUER") === undefined) {
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
  if (Object.hasOwn(prometheusHeaders, name)) {
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

/**
 * The configuration of a cold start: `loadConfig(process.env)`, whose failure is one line (its stack
 * is the message alone), so the function's log shows what to fix rather than a trace.
 */
export function configFromEnvironment(env: Env = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof Error) error.stack = `${error.name}: ${error.message}`;
    throw error;
  }
}

/**
 * Every environment variable the server reads (README "Configuration"), and those of the local runs
 * (`npm start`'s ports): the names a misspelling is measured against.
 */
export const SETTING_NAMES = [
  "PROMETHEUS_URL",
  "PROMETHEUS_AUTH",
  "PROMETHEUS_SECRET",
  "PROMETHEUS_HEADERS",
  "PROMETHEUS_KIND",
  "BACKENDS",
  "TENANT_CLAIM",
  "TENANT_HEADER",
  "ALLOWED_TENANTS",
  "ALERTMANAGER_URL",
  "ALLOWED_WORKSPACES",
  "ALLOWED_REGIONS",
  "AWS_REGION",
  "AMP_ENDPOINT",
  "JWT_ISSUER",
  "JWT_SCOPES",
  "PYTHON_COMPAT",
  "TOOLS",
  "ALLOWED_ORIGINS",
  "MAX_BODY_BYTES",
  "MAX_RESULT_TOKENS",
  "MAX_RESULT_BYTES",
  "LOG_LEVEL",
  "METRICS",
  "METRICS_NAMESPACE",
  "SERVICE_NAME",
  "TRACING",
  "SESSIONS",
  "SESSION_TTL_SECONDS",
  "SESSION_STORE",
  "SESSION_DIR",
  "SESSION_TABLE",
  "DYNAMODB_ENDPOINT",
  "PORT",
  "LAMBDA_PORT",
] as const;

/**
 * Prefixes only this server's settings use: any other variable starting so is a mistake. (Not
 * SESSION_, which desktop sessions set as SESSION_MANAGER; a misspelled SESSION_ name is near one anyway.)
 */
const OUR_PREFIXES = ["PROMETHEUS_", "ALERTMANAGER_", "MAX_RESULT_", "PYTHON_COMPAT", "METRICS_", "JWT_"];

/** Character counts, reused by bagDistance (one call at a time). */
const bag = new Int32Array(128);

/**
 * How many characters one name has that the other lacks, counted with repeats (the larger of the two
 * sides): a lower bound of their edit distance, since one edit changes each side by at most one. It
 * rules out nearly every pair in a few steps, before the quadratic Levenshtein table: a cold start
 * checks every variable of the function's environment against every setting (bench case cold-start).
 */
function bagDistance(a: string, b: string): number {
  for (let i = 0; i < a.length; i++) bag[a.charCodeAt(i) & 127] = (bag[a.charCodeAt(i) & 127] as number) + 1;
  for (let i = 0; i < b.length; i++) bag[b.charCodeAt(i) & 127] = (bag[b.charCodeAt(i) & 127] as number) - 1;
  let surplus = 0;
  let deficit = 0;
  const settle = (text: string) => {
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i) & 127;
      const count = bag[code] as number;
      if (count > 0) surplus += count;
      else deficit -= count;
      bag[code] = 0;
    }
  };
  settle(a);
  settle(b);
  return Math.max(surplus, deficit);
}

/** Levenshtein distance, stopping early once it exceeds `limit` (names are short). */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit || bagDistance(a, b) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length] as number;
}

/**
 * How far a name may be from one of ours to count as its misspelling: 2 edits, but 1 for names of 5
 * letters or fewer, which 2 edits would confuse with unrelated variables (HOST is 2 from PORT).
 */
function misspellingLimit(known: string): number {
  return known.length <= 5 ? 1 : 2;
}

/** The setting a variable most likely meant, when it is not one but looks like one; undefined otherwise. */
export function intendedSetting(variable: string): string | undefined {
  const known: readonly string[] = SETTING_NAMES;
  if (known.includes(variable)) return undefined;
  const upper = variable.toUpperCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of SETTING_NAMES) {
    const limit = misspellingLimit(name);
    const distance = editDistance(upper, name, limit);
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** True for a variable that carries one of our prefixes without being one of our settings. */
function hasOurPrefix(variable: string): boolean {
  const known: readonly string[] = SETTING_NAMES;
  return (
    !known.includes(variable) && OUR_PREFIXES.some((prefix) => variable.toUpperCase().startsWith(prefix))
  );
}

/**
 * Mistakes the configuration does not refuse but that would show only at the first tool call, each as
 * one line naming the fix: SigV4 signing for a URL that is not AMP's, and variables that look like one
 * of ours but are not (`PROMETHEUS_ULR`). Printed at start by `npm start`, `invoke local`, the stdio
 * entry and a Lambda cold start.
 */
export function configWarnings(config: Config, env: Env = process.env): string[] {
  const warnings: string[] = [];
  const mismatch = sigv4Mismatch(config.prometheusUrl, config.prometheusAuth);
  if (mismatch !== undefined) warnings.push(`Warning: ${mismatch}`);
  if (config.prometheusSecret?.kind === "literal") {
    warnings.push(
      "Warning: PROMETHEUS_SECRET holds the credentials themselves: fine on this machine, but a deployment reads them from Secrets Manager (the secret's ARN) or SSM (ssm:/parameter).",
    );
  }
  for (const backend of config.backends ?? []) {
    if (backend.secret?.kind === "literal") {
      warnings.push(
        `Warning: BACKENDS backend "${backend.name}" holds its credentials themselves in "secret": fine on this machine, but a deployment reads them from Secrets Manager (the secret's ARN) or SSM (ssm:/parameter).`,
      );
    }
  }
  for (const variable of Object.keys(env).sort()) {
    const intended = intendedSetting(variable);
    if (intended !== undefined) {
      warnings.push(
        `Warning: ${variable} is not a setting of this server and is ignored; did you mean ${intended}?`,
      );
    } else if (hasOurPrefix(variable)) {
      warnings.push(
        `Warning: ${variable} is not a setting of this server and is ignored (the settings are in the README, "Configuration").`,
      );
    }
  }
  return warnings;
}

const AUTH_WORDS: Readonly<Record<AuthMode, string>> = {
  sigv4: "SigV4 (AMP)",
  none: "none",
  basic: "basic auth",
  bearer: "bearer token",
};

/** One line saying which Prometheus the tools query and how: printed when a local server starts. */
export function describeTarget(config: Config): string {
  if (config.backends !== undefined) {
    const each = config.backends.map(
      (backend) =>
        `${backend.name}${backend.isDefault ? " (default)" : ""} = ${redactCredentials(backend.url)} [${backend.kind}, auth ${AUTH_WORDS[backend.auth]}]`,
    );
    return `Prometheus backends: ${each.join("; ")}${config.backendsOnly ? " (backends only: workspace_id takes their names)" : "; AMP workspaces by workspace_id as well"}`;
  }
  const where =
    config.prometheusUrl === undefined
      ? "no PROMETHEUS_URL: AMP workspaces by workspace_id (GetAvailableWorkspaces lists them)"
      : redactCredentials(config.prometheusUrl);
  const auth = AUTH_WORDS[config.prometheusAuth];
  const headers = Object.keys(config.prometheusHeaders);
  return `Prometheus: ${where}, auth ${auth}${headers.length > 0 ? ` (headers ${headers.join(", ")})` : ""}${config.plainPrometheus ? " (plain Prometheus: no workspace_id, region or profile)" : ""}`;
}
