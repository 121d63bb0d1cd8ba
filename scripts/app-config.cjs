// The application's own configuration module (src/config.ts: loadConfig, configWarnings,
// describeTarget) and its workspace and region rules (src/prometheus/access.ts, regions.ts), for the
// scripts serverless runs (check-settings.cjs, offline-start.cjs, workspace-arns.cjs, alarm-actions.cjs):
// compiled on the fly from src/scriptExports.ts, once per process, so they judge the settings exactly
// as the function will.
//
// Compiled by a one-shot esbuild process (the CLI), not esbuild's JavaScript API: its synchronous calls
// (buildSync) start a long-lived esbuild service in a worker thread that lives as long as serverless
// does, and when serverless then exits early (process.exit, e.g. a port in use) that service, cut off
// mid-ping, printed Go's "fatal error: all goroutines are asleep - deadlock!" and a goroutine dump in
// about one run of four. A one-shot process has ended before anything else happens.
"use strict";

const { execFileSync } = require("node:child_process");
const { openSync, readSync, closeSync } = require("node:fs");
const { isAbsolute, join, relative } = require("node:path");

/** The shell's environment, as serverless got it (before `invoke local` copies the function's into it). */
const shell = { ...process.env };
/** The directory serverless was started in (before `invoke local` moves into its build folder). */
const shellCwd = process.cwd();

const ENTRY = join(__dirname, "..", "src", "config", "scripts.ts");

/** How to run the esbuild CLI: its native binary, or (where the package ships a Node script) node. */
function esbuildCommand() {
  if (process.env.ESBUILD_BINARY_PATH) return [process.env.ESBUILD_BINARY_PATH];
  const bin = join(require.resolve("esbuild/package.json"), "..", "bin", "esbuild");
  const head = Buffer.alloc(2);
  const fd = openSync(bin, "r");
  try {
    readSync(fd, head, 0, 2, 0);
  } finally {
    closeSync(fd);
  }
  return head.toString("latin1") === "#!" ? [process.execPath, bin] : [bin];
}

let app;

/** The exports of src/scriptExports.ts (src/config.ts's and the workspace and region rules), compiled on first use. */
function appConfig() {
  if (app !== undefined) return app;
  const [command, ...prefix] = esbuildCommand();
  let code;
  try {
    code = execFileSync(
      command,
      [...prefix, ENTRY, "--bundle", "--platform=node", "--format=cjs", "--log-level=error"],
      { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, stdio: ["ignore", "pipe", "pipe"], windowsHide: true },
    );
  } catch (error) {
    const detail = String(error.stderr ?? "").trim() || error.message;
    throw new Error(
      `Could not compile src/scriptExports.ts (src/config.ts and the rules it uses) to check the settings:\n${detail}`,
    );
  }
  const module = { exports: {} };
  new Function("module", "exports", "require", code)(module, module.exports, require);
  app = module.exports;
  return app;
}

/**
 * The function's resolved environment (provider.environment) as strings. A value CloudFormation fills in
 * at deploy time (the sessions table's Ref) is not known here: a stand-in name takes its place.
 */
function functionEnvironment(environment) {
  const env = {};
  for (const [name, value] of Object.entries(environment ?? {})) {
    if (value === null || value === undefined) continue;
    env[name] = typeof value === "object" ? "(set by CloudFormation at deploy time)" : String(value);
  }
  return env;
}

/**
 * The environment the function runs with under this command: for the local runs (`marker` IS_OFFLINE
 * or IS_LOCAL) the shell's variables, then the function's, then the marker, as serverless offline and
 * invoke local assemble it; for package / deploy the function's alone, as Lambda gets it. AWS_REGION is
 * the stack's either way.
 */
function runEnvironment(environment, region, marker) {
  return {
    ...(marker === undefined ? {} : shell),
    ...functionEnvironment(environment),
    AWS_REGION: String(region),
    ...(marker === undefined ? {} : { [marker]: "true" }),
  };
}

/**
 * The configuration the function will load, and the warnings for it: configWarnings over the shell's
 * variables and the function's (a misspelled PROMETHEUS_ULR lives in the shell; the function never
 * gets it, which is the mistake). Throws the app's ConfigError for a bad setting.
 */
function judge(environment, region, marker) {
  const { loadConfig, configWarnings } = appConfig();
  const env = runEnvironment(environment, region, marker);
  const config = loadConfig(env);
  const names = { ...shell, ...env };
  return { config, warnings: configWarnings(config, names) };
}

/** `dir` relative to the directory serverless was started in when it lies under it, else as it is. */
function shortPath(dir) {
  if (!isAbsolute(dir)) return dir;
  const inside = relative(shellCwd, dir);
  return inside !== "" && !inside.startsWith("..") && !isAbsolute(inside) ? inside : dir;
}

/** Where sessions live, for the start line: `file .local/sessions`, `memory`, `dynamodb table …`. */
function sessionsWhere(config) {
  if (config.sessions === "off") return "off (SESSIONS=off)";
  if (config.sessionStore === "file") return `file ${shortPath(config.sessionDir)}`;
  if (config.sessionStore === "dynamodb") {
    const endpoint = config.dynamodbEndpoint === undefined ? "" : ` at ${config.dynamodbEndpoint}`;
    return `dynamodb table ${config.sessionTable}${endpoint}`;
  }
  return "memory (lost when it stops)";
}

/** The one start line of `npm start`: which Prometheus the tools query and how, and where sessions live. */
function targetLine(config) {
  return `${appConfig().describeTarget(config)}; sessions: ${sessionsWhere(config)}`;
}

module.exports = { appConfig, judge, targetLine, shell, shellCwd };
