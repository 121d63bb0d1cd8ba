/**
 * The server's configuration: every setting in one zod schema (schema.ts), the rules between settings
 * (rules.ts), the start-up warnings (warnings.ts). `loadConfig` reads the environment once, at cold
 * start; a bad setting is one ConfigError line naming the variable, never quoting a secret.
 */

import type * as z from "zod";
import { ampRegionOfUrl, workspaceIdFromUrl } from "../prometheus/access.js";
import { Regions } from "../prometheus/regions.js";
import { type Env, fail, failQuietly, read } from "./errors.js";
import {
  allowedRegionsOf,
  backendsOf,
  backendWorkspaces,
  inPartition,
  oauthOf,
  prometheusKindOf,
  sessionDirOf,
  sessionStoreOf,
  tenantPlacesRule,
  tenantsOf,
  upstreamSecretOf,
  urlCredentialsRule,
  workspacesInPartition,
} from "./rules.js";
import { SETTINGS, type Settings, settingMeta } from "./schema.js";
import { servedTools } from "./tools.js";
import type { Config } from "./types.js";

export { ConfigError, type Env } from "./errors.js";
export {
  DEFAULT_AWS_REGION,
  DEFAULT_METRICS_NAMESPACE,
  DEFAULT_SERVICE_NAME,
  DEFAULT_SESSION_DIR,
  SETTING_NAMES,
  SETTINGS,
  settingMeta,
} from "./schema.js";
export type { Config } from "./types.js";
export { configWarnings, describeTarget, intendedSetting } from "./warnings.js";

type SettingName = keyof typeof SETTINGS;

/** Each setting parsed alone: the first bad one (in the schema's order) is the error line. */
function parseSettings(env: Env): { settings: Settings; given: Set<string> } {
  const settings: Record<string, unknown> = {};
  const given = new Set<string>();
  // Setting by setting, not as one z.object: zod compiles an object's parser on its first parse, which
  // costs more than the one parse a cold start makes (bench case sdkFloor).
  for (const [name, schema] of Object.entries(SETTINGS) as [SettingName, z.ZodType][]) {
    const value = read(env, name);
    if (value !== undefined) given.add(name);
    const parsed = schema.safeParse(value);
    if (parsed.success) {
      settings[name] = parsed.data;
      continue;
    }
    const expected = parsed.error.issues[0]?.message ?? "a valid value";
    if (settingMeta(name).secret === true) failQuietly(name, expected);
    return fail(name, value ?? "", expected);
  }
  return { settings: settings as Settings, given };
}

/** Where the code runs: a deployed Lambda, `serverless offline` or `invoke local`. */
function placeOf(env: Env): Pick<Config, "inLambda" | "isOffline" | "isLocal"> {
  const isOffline = read(env, "IS_OFFLINE") !== undefined;
  const isLocal = read(env, "IS_LOCAL") !== undefined;
  const inLambda = read(env, "AWS_LAMBDA_FUNCTION_NAME") !== undefined && !isOffline && !isLocal;
  return { inLambda, isOffline, isLocal };
}

/** The upstream servers: one URL or BACKENDS, the workspaces and regions the function may read. */
function upstreamOf(settings: Settings, given: ReadonlySet<string>, env: Env, inLambda: boolean) {
  urlCredentialsRule(settings);
  const prometheusSecret = upstreamSecretOf(settings, inLambda);
  const regions = new Regions(settings.AWS_REGION);
  const url = settings.PROMETHEUS_URL;
  const urlRegion = ampRegionOfUrl(url);
  if (url !== undefined && urlRegion !== undefined) inPartition("PROMETHEUS_URL", url, urlRegion, regions);
  const backends = backendsOf(settings, given, inLambda);
  const listed = settings.ALLOWED_WORKSPACES;
  workspacesInPartition(listed, read(env, "ALLOWED_WORKSPACES") ?? "", regions);
  const allowedWorkspaces = [...listed, ...backendWorkspaces(backends ?? [], regions)];
  const allowedRegions = allowedRegionsOf(settings, read(env, "ALLOWED_REGIONS"), allowedWorkspaces);
  return { prometheusSecret, backends, allowedWorkspaces, allowedRegions };
}

/** Reads and validates the environment once, at cold start. Throws one ConfigError line naming the variable. */
export function loadConfig(env: Env = process.env): Config {
  const { settings, given } = parseSettings(env);
  const place = placeOf(env);
  const upstream = upstreamOf(settings, given, env, place.inLambda);
  const { backends } = upstream;
  const pythonCompat = settings.PYTHON_COMPAT;
  const sessionStore = sessionStoreOf(settings, place.isOffline || place.isLocal);
  const sessionDir = sessionDirOf(settings.SESSION_DIR, place.inLambda, sessionStore);
  const ampEndpoint = settings.AMP_ENDPOINT;
  const prometheusUrl = settings.PROMETHEUS_URL;
  const prometheusAuth = settings.PROMETHEUS_AUTH;
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
    settings.ALLOWED_WORKSPACES.length === 0 &&
    !pythonCompat;
  const tenants = tenantsOf(settings, backends);
  tenantPlacesRule(tenants, prometheusUrl, backends);
  return {
    prometheusUrl,
    prometheusAuth,
    prometheusSecret: upstream.prometheusSecret,
    prometheusHeaders: settings.PROMETHEUS_HEADERS,
    prometheusKind: prometheusKindOf(settings),
    backends,
    backendsOnly,
    allowedWorkspaces: upstream.allowedWorkspaces,
    allowedRegions: upstream.allowedRegions,
    awsRegion: settings.AWS_REGION,
    oauth: oauthOf(settings),
    ampEndpoint,
    plainPrometheus,
    sessionStore,
    sessionDir,
    sessionTable: settings.SESSION_TABLE,
    dynamodbEndpoint: settings.DYNAMODB_ENDPOINT,
    sessions: settings.SESSIONS,
    sessionTtlSeconds: settings.SESSION_TTL_SECONDS,
    pythonCompat,
    allowedOrigins: settings.ALLOWED_ORIGINS,
    maxBodyBytes: settings.MAX_BODY_BYTES,
    maxResultTokens: settings.MAX_RESULT_TOKENS,
    maxResultBytes: settings.MAX_RESULT_BYTES,
    logLevel: settings.LOG_LEVEL,
    // A person reads local logs: the CloudWatch metrics document would be most of every line.
    metrics: settings.METRICS ?? !(place.isOffline || place.isLocal),
    metricsNamespace: settings.METRICS_NAMESPACE,
    tracing: settings.TRACING,
    serviceName: settings.SERVICE_NAME,
    ...place,
    tools: servedTools(settings.TOOLS, pythonCompat, plainPrometheus),
    alertmanagerUrl: settings.ALERTMANAGER_URL,
    tenants,
  };
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
