/**
 * Every setting of the server: its environment variable, type, default and one line of documentation,
 * in one zod object. The docs' configuration table is checked against it (test/unit/configSchema.test.ts),
 * and the deploy scripts take the fixed defaults from it (scripts/settings.cjs). What one setting
 * cannot judge alone (AWS_REGION's partition, PROMETHEUS_AUTH with PROMETHEUS_SECRET…) is in rules.ts.
 */
import { LogLevel as LOG_LEVEL } from "@aws-lambda-powertools/logger";
import type * as z from "zod";
import { parseWorkspaceEntry } from "../prometheus/access.js";
import { BACKEND_KINDS } from "../prometheus/backends.js";
import { parseHeaders } from "../prometheus/headers.js";
import { REGION_PATTERN } from "../prometheus/regions.js";
import { DEFAULT_RESULT_BYTES } from "../results/inlineSize.js";
import { entriesOf } from "./errors.js";
import {
  boolean,
  httpUrl,
  httpUrlOf,
  list,
  metricName,
  oneOf,
  onOff,
  refuse,
  type SettingMeta,
  setting,
  text,
  wholeNumber,
} from "./fields.js";
import { checkToolEntries, toolEntries } from "./tools.js";

/** Powertools Logger's levels, upper case. */
export type LogLevel = (typeof LOG_LEVEL)[keyof typeof LOG_LEVEL];
const LOG_LEVELS: readonly LogLevel[] = Object.values(LOG_LEVEL);

export const DEFAULT_METRICS_NAMESPACE = "PrometheusMcp";
export const DEFAULT_SERVICE_NAME = "prometheus-mcp-lambda";
/** SESSION_DIR's default, relative to the working directory (the project's, under `npm start`). */
export const DEFAULT_SESSION_DIR = ".local/sessions";
export const DEFAULT_AWS_REGION = "us-east-1";

const WORKSPACE_ENTRIES =
  "a comma-separated list of AMP workspace ids such as ws-12345678-abcd-1234-abcd-123456789012, " +
  "workspace URLs such as https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-…/ " +
  "or workspace ARNs such as arn:aws:aps:eu-west-1:123456789012:workspace/ws-…";

/** A secret's value is never repeated: parsers' messages say what was expected, not what was given. */
function quietly<T>(parse: (raw: string) => T): (raw: string) => T {
  return (raw) => {
    try {
      return parse(raw);
    } catch (error) {
      return refuse((error as Error).message);
    }
  };
}

const unique = <T>(values: readonly T[]): T[] => [...new Set(values)];

function workspaces(meta: SettingMeta) {
  return setting(
    (raw) => {
      const entries = entriesOf(raw);
      if (entries.some((entry) => parseWorkspaceEntry(entry) === undefined)) refuse(WORKSPACE_ENTRIES);
      return unique(entries);
    },
    [] as string[],
    meta,
  );
}

function regions(meta: SettingMeta) {
  return setting(
    (raw) => {
      const entries = entriesOf(raw);
      if (entries.length === 0) return undefined;
      if (!entries.every((region) => REGION_PATTERN.test(region))) {
        refuse("a comma-separated list of AWS regions such as us-east-1,eu-west-1");
      }
      return unique(entries);
    },
    undefined,
    meta,
  );
}

function origin(entry: string): string {
  if (entry === "*") return entry;
  try {
    return new URL(entry).origin;
  } catch {
    return refuse("a comma-separated list of origins such as https://app.example.com");
  }
}

/** JWT_ISSUER: an http(s) URL without a trailing slash (the authorizer compares `iss` exactly). */
function issuer(meta: SettingMeta) {
  return setting(
    (raw) => {
      const url = httpUrlOf(raw);
      if (url.endsWith("/")) {
        refuse("the issuer exactly as tokens name it (`iss`), without a trailing slash");
      }
      return url;
    },
    undefined,
    meta,
  );
}

/** TOOLS: names and groups of tools/catalog.json, at least one (tools.ts expands them). */
function toolList(meta: SettingMeta) {
  return setting(
    (raw) => {
      const entries = toolEntries(raw);
      const problem = checkToolEntries(entries);
      return problem === undefined ? entries : refuse(problem);
    },
    undefined,
    meta,
  );
}

/** The settings, in the order of the docs' table; each parses alone (cross-setting rules: rules.ts). */
export const SETTINGS = {
  PROMETHEUS_URL: httpUrl({ description: "fixed Prometheus or AMP workspace URL" }),
  PROMETHEUS_AUTH: oneOf(["sigv4", "none", "basic", "bearer"] as const, "sigv4", {
    description: "how data-plane calls authenticate: SigV4 for AMP, none, basic or bearer",
  }),
  PROMETHEUS_SECRET: text({
    description: "where basic / bearer credentials are kept: a Secrets Manager ARN or ssm:/parameter",
    secret: true,
  }),
  PROMETHEUS_HEADERS: setting(quietly(parseHeaders), {} as Readonly<Record<string, string>>, {
    description: "extra headers on every Prometheus and Alertmanager request",
    secret: true,
  }),
  PROMETHEUS_KIND: oneOf(BACKEND_KINDS, undefined, {
    description: "what PROMETHEUS_URL is (GetServerInfo's backend_kind)",
    documentedDefault: "from the URL",
  }),
  BACKENDS: text({
    description: "several named servers: a JSON object, or the path of a file holding one (backends.ts)",
    secret: true,
  }),
  TENANT_CLAIM: text({ description: "the JWT claim naming each caller's tenant" }),
  TENANT_HEADER: text({
    description: "the header the caller's tenant goes in (with TENANT_CLAIM)",
    documentedDefault: "`X-Scope-OrgID`",
  }),
  ALLOWED_TENANTS: setting((raw) => unique(entriesOf(raw)), [] as string[], {
    description: "comma-separated tenants a token may name (with TENANT_CLAIM)",
    documentedDefault: "unset (any)",
  }),
  ALERTMANAGER_URL: httpUrl({ description: "the Alertmanager ListSilences reads for a plain Prometheus" }),
  ALLOWED_WORKSPACES: workspaces({
    description: "comma-separated workspaces the function may read besides PROMETHEUS_URL's",
  }),
  ALLOWED_REGIONS: regions({
    description: "comma-separated regions the tools may call; must include AWS_REGION",
    documentedDefault: "unset (a deployment: its regions)",
  }),
  AWS_REGION: setting(
    (raw) => (REGION_PATTERN.test(raw) ? raw : refuse("an AWS region such as us-east-1")),
    DEFAULT_AWS_REGION,
    { description: "region for tools called without `region`", fixedDefault: DEFAULT_AWS_REGION },
  ),
  AMP_ENDPOINT: httpUrl({ description: "override of the AMP control-plane endpoint (tests, local fakes)" }),
  JWT_ISSUER: issuer({ description: "the OAuth issuer of the tokens the API's JWT authorizer accepts" }),
  JWT_SCOPES: setting((raw) => unique(raw.split(/[\s,]+/).filter((scope) => scope !== "")), [] as string[], {
    description: "scopes a request's JWT must hold one of, listed in the resource metadata",
  }),
  PYTHON_COMPAT: boolean({ description: "`true` restores the Python Lambda's non-spec answers" }),
  TOOLS: toolList({
    description: "the tools served: names and groups, comma-separated",
    documentedDefault: "`all` (`core` with `PYTHON_COMPAT`)",
  }),
  ALLOWED_ORIGINS: list(origin, [] as string[], {
    description: "comma-separated browser origins allowed besides localhost (`*` allows all)",
  }),
  MAX_BODY_BYTES: wholeNumber(
    1_048_576,
    { max: 6_291_456 },
    { description: "larger request bodies get 413" },
  ),
  MAX_RESULT_TOKENS: wholeNumber(
    20_000,
    { min: 1_000, max: 6_000_000 },
    { description: "the model's budget for one tool result, in tokens" },
  ),
  MAX_RESULT_BYTES: wholeNumber(
    undefined,
    { min: 1_000, max: 6_000_000 },
    {
      description: "a hard cap on one tool result's text in bytes, beside the token budget",
      documentedDefault: `\`${DEFAULT_RESULT_BYTES}\``,
    },
  ),
  LOG_LEVEL: oneOf(LOG_LEVELS, "INFO", { description: "Powertools Logger level, any case" }),
  METRICS: onOff(undefined, {
    description: "CloudWatch metrics (EMF) on each request's log line",
    documentedDefault: "`on` (`off` locally)",
  }),
  METRICS_NAMESPACE: metricName(DEFAULT_METRICS_NAMESPACE, {
    description: "the CloudWatch namespace of the metrics",
  }),
  SERVICE_NAME: metricName(DEFAULT_SERVICE_NAME, {
    description: "the `service` of every log line and metric",
  }),
  TRACING: onOff(false, { description: "X-Ray subsegments for each request, tool call and upstream call" }),
  SESSIONS: oneOf(["optional", "required", "off"] as const, "optional", {
    description: "whether requests other than initialize need a session",
  }),
  SESSION_TTL_SECONDS: wholeNumber(86_400, { max: 31_536_000 }, { description: "sliding session lifetime" }),
  SESSION_STORE: oneOf(["memory", "file", "dynamodb"] as const, undefined, {
    description: "where sessions live without SESSION_TABLE",
    documentedDefault: "`memory` (`file` locally)",
  }),
  SESSION_DIR: setting((raw) => raw, DEFAULT_SESSION_DIR, {
    description: "the file store's directory, relative to the working directory",
    fixedDefault: DEFAULT_SESSION_DIR,
  }),
  SESSION_TABLE: text({ description: "DynamoDB table for sessions (set by serverless deploy)" }),
  DYNAMODB_ENDPOINT: httpUrl({ description: "override of the DynamoDB endpoint (a local DynamoDB)" }),
} as const;

/**
 * The settings as each parses alone (src/config/index.ts parses them one by one, in the order above:
 * the first bad one is the error line).
 */
export type Settings = { [Name in keyof typeof SETTINGS]: z.output<(typeof SETTINGS)[Name]> };

/** A setting's documentation (its name, type's rules and default): what the docs table shows. */
export function settingMeta(name: keyof typeof SETTINGS): SettingMeta {
  return SETTINGS[name].meta() as unknown as SettingMeta;
}

/** The ports of the local runs (`npm start`), read by scripts/command-settings.cjs, not the function. */
export const LOCAL_SETTING_NAMES = ["PORT", "LAMBDA_PORT"] as const;

/**
 * Every environment variable the server reads (the docs' configuration table), and those of the local
 * runs (`npm start`'s ports): the names a misspelling is measured against.
 */
export const SETTING_NAMES = [
  ...(Object.keys(SETTINGS) as (keyof typeof SETTINGS)[]),
  ...LOCAL_SETTING_NAMES,
] as const;
