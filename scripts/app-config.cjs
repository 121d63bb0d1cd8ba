// The application's own configuration module (src/config/: loadConfig, configWarnings, describeTarget,
// the settings' schema and the TOOLS reading) and its workspace and region rules (src/prometheus/access.ts,
// regions.ts), for the scripts serverless runs (check-settings.cjs, offline-start.cjs, workspace-arns.cjs,
// role-statements.cjs, settings.cjs…), so they judge the settings exactly as the function will.
//
// Compiled once from src/config/scripts.ts into dist/config/scripts.cjs: by `npm run build:config`
// (which `prepare`, so `npm ci`, runs), and again here when a source is newer than it (a checkout that
// changed src/ since), so serverless never compiles src/ while it resolves the configuration otherwise.
// `node scripts/app-config.cjs --build` builds it.
//
// Compiled by a one-shot esbuild process (the CLI), not esbuild's JavaScript API: its synchronous calls
// (buildSync) start a long-lived esbuild service in a worker thread that lives as long as serverless
// does, and when serverless then exits early (process.exit, e.g. a port in use) that service, cut off
// mid-ping, printed Go's "fatal error: all goroutines are asleep - deadlock!" and a goroutine dump in
// about one run of four. A one-shot process has ended before anything else happens.
"use strict";

const { execFileSync } = require("node:child_process");
const { closeSync, mkdirSync, openSync, readdirSync, readSync, renameSync, statSync } = require("node:fs");
const { isAbsolute, join, relative } = require("node:path");

/** The shell's environment, as serverless got it (before `invoke local` copies the function's into it). */
const shell = { ...process.env };
/** The directory serverless was started in (before `invoke local` moves into its build folder). */
const shellCwd = process.cwd();

const ROOT = join(__dirname, "..");
const ENTRY = join(ROOT, "src", "config", "scripts.ts");
/** The compiled configuration the scripts read. */
const COMPILED = join(ROOT, "dist", "config", "scripts.cjs");
/** What it is made from: the sources, and this file (which says how). */
const SOURCES = ["src", "tools", "package-lock.json", "scripts/app-config.cjs"];

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

/** The newest modification time among the sources. */
function newestSource() {
  let newest = 0;
  for (const source of SOURCES) {
    const path = join(ROOT, source);
    let info;
    try {
      info = statSync(path);
    } catch {
      continue;
    }
    if (!info.isDirectory()) newest = Math.max(newest, info.mtimeMs);
    else
      for (const name of readdirSync(path, { recursive: true }))
        newest = Math.max(newest, statSync(join(path, name)).mtimeMs);
  }
  return newest;
}

/** True when dist/config/scripts.cjs is missing or older than a source. */
function isStale() {
  try {
    return statSync(COMPILED).mtimeMs < newestSource();
  } catch {
    return true;
  }
}

/**
 * Compiles src/config/scripts.ts to dist/config/scripts.cjs: into a file of this process's own, renamed
 * over the old one, so serverless processes started together never read a half-written module.
 */
function buildConfig() {
  const [command, ...prefix] = esbuildCommand();
  mkdirSync(join(ROOT, "dist", "config"), { recursive: true });
  const partial = `${COMPILED}.${process.pid}.tmp`;
  try {
    execFileSync(
      command,
      [
        ...prefix,
        ENTRY,
        "--bundle",
        "--platform=node",
        "--format=cjs",
        "--log-level=error",
        `--outfile=${partial}`,
      ],
      { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], windowsHide: true },
    );
  } catch (error) {
    const detail = String(error.stderr ?? "").trim() || error.message;
    throw new Error(
      `Could not compile src/config/scripts.ts (the configuration and the rules it uses) to check the settings:\n${detail}`,
    );
  }
  renameSync(partial, COMPILED);
}

let app;

/** The exports of src/config/scripts.ts, compiled (dist/config/scripts.cjs), rebuilt first when stale. */
function appConfig() {
  if (app !== undefined) return app;
  if (isStale()) buildConfig();
  app = require(COMPILED);
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

module.exports = { appConfig, buildConfig, judge, targetLine, shell, shellCwd };

if (require.main === module && process.argv.includes("--build")) {
  try {
    require.resolve("esbuild/package.json");
  } catch {
    // An install without dev dependencies has no esbuild, and no serverless to read the module.
    process.stderr.write("build:config: esbuild is not installed (dev dependency); nothing built\n");
    process.exit(0);
  }
  buildConfig();
}
