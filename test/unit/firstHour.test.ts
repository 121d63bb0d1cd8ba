import { afterEach, describe, expect, it, vi } from "vitest";
import {
  type Config,
  configWarnings,
  describeTarget,
  intendedSetting,
  loadConfig,
  SETTING_NAMES,
} from "../../src/config/index.js";
import { TOOL_ERROR_KINDS } from "../../src/errors.js";
import { createHandler } from "../../src/lambda/app.js";
import { captureOutput } from "../support/capture.js";
import { callHttp, type Handler } from "../support/handler.js";

const PLAIN = { PROMETHEUS_URL: "http://127.0.0.1:9090", PROMETHEUS_AUTH: "none" };
const AMP_URL = "https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-12345678-abcd/";

/** The variables AWS Lambda's Node runtime sets in every function (AWS docs, "Defined runtime environment variables"). */
const LAMBDA_RUNTIME_VARIABLES = [
  "_HANDLER",
  "_X_AMZN_TRACE_ID",
  "AWS_DEFAULT_REGION",
  "AWS_REGION",
  "AWS_EXECUTION_ENV",
  "AWS_LAMBDA_FUNCTION_NAME",
  "AWS_LAMBDA_FUNCTION_MEMORY_SIZE",
  "AWS_LAMBDA_FUNCTION_VERSION",
  "AWS_LAMBDA_INITIALIZATION_TYPE",
  "AWS_LAMBDA_LOG_GROUP_NAME",
  "AWS_LAMBDA_LOG_STREAM_NAME",
  "AWS_LAMBDA_LOG_FORMAT",
  "AWS_LAMBDA_LOG_LEVEL",
  "AWS_ACCESS_KEY",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "AWS_LAMBDA_RUNTIME_API",
  "LAMBDA_TASK_ROOT",
  "LAMBDA_RUNTIME_DIR",
  "AWS_XRAY_CONTEXT_MISSING",
  "AWS_XRAY_DAEMON_ADDRESS",
  "AWS_NODEJS_CONNECTION_REUSE_ENABLED",
  "NODE_PATH",
  "NODE_EXTRA_CA_CERTS",
  "LANG",
  "PATH",
  "LD_LIBRARY_PATH",
  "TZ",
];

/** Variables of an ordinary developer shell, and those serverless offline adds. */
const SHELL_VARIABLES = [
  "HOME",
  "HOST",
  "HOSTNAME",
  "USER",
  "SHELL",
  "TERM",
  "PWD",
  "OLDPWD",
  "EDITOR",
  "LOGNAME",
  "SESSION_MANAGER",
  "DISPLAY",
  "SSH_AUTH_SOCK",
  "NODE_ENV",
  "NODE_OPTIONS",
  "npm_config_cache",
  "IS_OFFLINE",
  "IS_LOCAL",
  "AWS_PROFILE",
  "AWS_EC2_METADATA_DISABLED",
];

const everyone = (names: readonly string[]) => Object.fromEntries(names.map((name) => [name, "x"]));

describe("a plain Prometheus", () => {
  it("is a non-AMP URL without SigV4, AMP_ENDPOINT or PYTHON_COMPAT; any of those makes it AMP-shaped", () => {
    expect(loadConfig(PLAIN).plainPrometheus).toBe(true);
    expect(loadConfig({ PROMETHEUS_URL: PLAIN.PROMETHEUS_URL }).plainPrometheus).toBe(false);
    expect(loadConfig({ ...PLAIN, PYTHON_COMPAT: "true" }).plainPrometheus).toBe(false);
    // An AMP control-plane endpoint beside it: workspaces are in play.
    expect(loadConfig({ ...PLAIN, AMP_ENDPOINT: "http://127.0.0.1:4000" }).plainPrometheus).toBe(false);
    // A workspace-shaped URL keeps the workspace rules whatever the auth (a local SigV4 stand-in).
    const standIn = "http://127.0.0.1:9090/workspaces/ws-local/";
    expect(loadConfig({ PROMETHEUS_URL: standIn, PROMETHEUS_AUTH: "none" }).plainPrometheus).toBe(false);
    expect(loadConfig({}).plainPrometheus).toBe(false);
  });

  it("serves no GetAvailableWorkspaces from a group, only when TOOLS names it", () => {
    expect(loadConfig(PLAIN).tools).not.toContain("GetAvailableWorkspaces");
    expect(loadConfig({ ...PLAIN, TOOLS: "core" }).tools).toStrictEqual([
      "ExecuteQuery",
      "ExecuteRangeQuery",
      "ListMetrics",
      "GetServerInfo",
    ]);
    expect(loadConfig({ ...PLAIN, TOOLS: "core,GetAvailableWorkspaces" }).tools).toContain(
      "GetAvailableWorkspaces",
    );
    expect(loadConfig({ PROMETHEUS_URL: AMP_URL }).tools).toContain("GetAvailableWorkspaces");
  });
});

describe("configuration warnings", () => {
  const warningsOf = (env: Record<string, string>) => configWarnings(loadConfig(env), env);

  it("SigV4 with a URL that is not AMP's: one line naming PROMETHEUS_AUTH=none", () => {
    const warnings = warningsOf({ PROMETHEUS_URL: "http://127.0.0.1:9090" });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^Warning: PROMETHEUS_URL=http:\/\/127\.0\.0\.1:9090 is not an AMP workspace URL/,
    );
    expect(warnings[0]).toContain("set PROMETHEUS_AUTH=none");
  });

  it("no warning for an AMP URL, a VPC endpoint of one, a stand-in workspace URL, or auth none", () => {
    const envs: Record<string, string>[] = [
      { PROMETHEUS_URL: AMP_URL },
      { PROMETHEUS_URL: "https://vpce-0a1b2c.aps-workspaces.eu-west-1.vpce.amazonaws.com/workspaces/ws-1/" },
      { PROMETHEUS_URL: "http://127.0.0.1:8080/workspaces/ws-local/" },
      PLAIN,
      {},
    ];
    for (const env of envs) {
      expect(warningsOf(env), JSON.stringify(env)).toStrictEqual([]);
    }
  });

  it.each([
    ["PROMETHEUS_ULR", "PROMETHEUS_URL"],
    ["PROMETHEUS_AUHT", "PROMETHEUS_AUTH"],
    ["prometheus_url", "PROMETHEUS_URL"],
    ["SESSION_TABEL", "SESSION_TABLE"],
    ["MAX_RESULT_TOKEN", "MAX_RESULT_TOKENS"],
    ["TOOL", "TOOLS"],
    ["ALERTMANAGER_UR", "ALERTMANAGER_URL"],
    ["LOGLEVEL", "LOG_LEVEL"],
  ])("%s: one line naming %s", (variable, intended) => {
    expect(intendedSetting(variable)).toBe(intended);
    const warnings = warningsOf({ [variable]: "x" });
    expect(warnings).toStrictEqual([
      `Warning: ${variable} is not a setting of this server and is ignored; did you mean ${intended}?`,
    ]);
  });

  it("a variable with one of our prefixes but far from every setting is named too", () => {
    expect(warningsOf({ PROMETHEUS_BEARER_TOKEN: "x" })).toStrictEqual([
      'Warning: PROMETHEUS_BEARER_TOKEN is not a setting of this server and is ignored (the settings are in the README, "Configuration").',
    ]);
  });

  it("nothing for our own settings, Lambda's runtime variables or an ordinary shell's", () => {
    const env = { ...everyone(LAMBDA_RUNTIME_VARIABLES), ...everyone(SHELL_VARIABLES) };
    expect(configWarnings(loadConfig({}), env)).toStrictEqual([]);
    expect(configWarnings(loadConfig({}), everyone(SETTING_NAMES))).toStrictEqual([]);
  });
});

describe("the start line", () => {
  const line = (config: Config) => describeTarget(config);

  it("names the Prometheus, its auth and the plain mode; never a password", () => {
    expect(line(loadConfig(PLAIN))).toBe(
      "Prometheus: http://127.0.0.1:9090, auth none (plain Prometheus: no workspace_id, region or profile)",
    );
    expect(line(loadConfig({ PROMETHEUS_URL: AMP_URL }))).toBe(`Prometheus: ${AMP_URL}, auth SigV4 (AMP)`);
    expect(line(loadConfig({}))).toMatch(/^Prometheus: no PROMETHEUS_URL: AMP workspaces by workspace_id/);
    const secret = loadConfig({ PROMETHEUS_URL: "http://me:s3cret@127.0.0.1:9090", PROMETHEUS_AUTH: "none" });
    expect(line(secret)).not.toContain("s3cret");
  });
});

describe("local defaults", () => {
  it("sessions in a file and no metrics under npm start and invoke local; memory and metrics in Lambda", () => {
    for (const marker of ["IS_OFFLINE", "IS_LOCAL"]) {
      const local = loadConfig({ [marker]: "true" });
      expect(local.sessionStore).toBe("file");
      expect(local.sessionDir).toBe(".local/sessions");
      expect(local.metrics).toBe(false);
      expect(loadConfig({ [marker]: "true", METRICS: "on" }).metrics).toBe(true);
    }
    const lambda = loadConfig({ AWS_LAMBDA_FUNCTION_NAME: "fn" });
    expect(lambda.sessionStore).toBe("memory");
    expect(lambda.metrics).toBe(true);
  });

  it("SESSION_STORE chooses; SESSION_TABLE means DynamoDB; dynamodb without a table fails naming both", () => {
    expect(loadConfig({ SESSION_STORE: "file", SESSION_DIR: "/tmp/s" })).toMatchObject({
      sessionStore: "file",
      sessionDir: "/tmp/s",
    });
    expect(loadConfig({ IS_OFFLINE: "true", SESSION_STORE: "memory" }).sessionStore).toBe("memory");
    expect(loadConfig({ IS_OFFLINE: "true", SESSION_TABLE: "t" }).sessionStore).toBe("dynamodb");
    expect(() => loadConfig({ SESSION_STORE: "dynamodb" })).toThrow(
      /^Invalid configuration: SESSION_STORE="dynamodb" \(expected SESSION_TABLE to be set as well/,
    );
    // In Lambda only /tmp is writable.
    const lambda = { AWS_LAMBDA_FUNCTION_NAME: "fn", SESSION_STORE: "file" };
    expect(() => loadConfig(lambda)).toThrow(
      /^Invalid configuration: SESSION_DIR=".local\/sessions" \(expected a directory under \/tmp with SESSION_STORE=file in Lambda/,
    );
    expect(loadConfig({ ...lambda, SESSION_DIR: "/tmp/sessions" }).sessionStore).toBe("file");
    // A directory of the store's own: not /tmp itself, shared with everything else in the container.
    for (const shared of ["/tmp", "/tmp/", "/tmp/.", "/tmp/sessions/..", "/tmp/../var/task"]) {
      expect(() => loadConfig({ ...lambda, SESSION_DIR: shared }), shared).toThrow(
        `Invalid configuration: SESSION_DIR="${shared}" (expected a directory under /tmp with SESSION_STORE=file in Lambda, such as /tmp/sessions, not /tmp itself`,
      );
    }
    expect(() => loadConfig({ SESSION_STORE: "disk" })).toThrow(
      'Invalid configuration: SESSION_STORE="disk" (expected one of memory, file, dynamodb)',
    );
  });
});

describe("tool error kinds", () => {
  it("every kind a request's log line can carry is in docs/configuration.md's list of outcomes", async () => {
    const { readFile } = await import("node:fs/promises");
    const doc = await readFile(new URL("../../docs/configuration.md", import.meta.url), "utf8");
    expect(doc).toContain("`outcome` is `ok`");
    const outcomes = doc.slice(doc.indexOf("`outcome` is `ok`"));
    const listed = outcomes.slice(0, outcomes.indexOf("\n"));
    for (const kind of [...TOOL_ERROR_KINDS, "fault"]) expect(listed).toContain(`\`${kind}\``);
  });
});

describe("warnings at a Lambda cold start", () => {
  afterEach(() => vi.restoreAllMocks());

  it("a handler logs each configuration warning once, at WARN, when built; not again per request", async () => {
    const config = loadConfig({ PROMETHEUS_URL: "http://127.0.0.1:9090", LOG_LEVEL: "WARN", METRICS: "off" });
    const warnings = configWarnings(config, { PROMETHEUS_ULR: "x" });
    expect(warnings).toHaveLength(2);
    const output = captureOutput();
    const handler = createHandler(config, { warnings }) as unknown as Handler;
    await callHttp(handler, { method: "GET", path: "/health", headers: {} });
    await callHttp(handler, { method: "GET", path: "/health", headers: {} });
    vi.restoreAllMocks();
    const logged = output.lines().filter((line) => line.level === "WARN");
    expect(logged.map((line) => line.message)).toStrictEqual(warnings);
  });
});
