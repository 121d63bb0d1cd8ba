// Per-command settings, read by serverless.yml (custom.esbuild, custom.serverless-offline, and the
// defaults of the sessionStore, metrics, ampEndpoint and dynamodbEndpoint parameters).
//
// osls takes the leading words of its arguments, up to the first option, as the command
// (`invoke local -f mcp`, `offline start --httpPort 3000`); so does this script.
//
// Bundle name: Lambda, and serverless-offline (which uses the Lambda runtime's loader), load an ESM
// bundle named `.mjs` with no package.json beside it. `osls invoke local` can only load
// `<handler>.js` or `.cjs`, so for that one command the bundle is named `.js`: it is still ESM there,
// because this project's package.json says "type": "module". Such a `.js` bundle must never reach a
// deployment artifact (the Lambda runtime would load it as CommonJS first), so `invoke local` also
// builds into its own folder.
//
// Local-only settings (AMP_ENDPOINT, DYNAMODB_ENDPOINT point the function at a stand-in on this
// machine): the local runs take them from the shell; every other command (package, deploy) never does,
// and says so when the shell has one set. Only an explicit --param deploys one, with a warning.
//
// Session store: `package` / `deploy` point SESSION_TABLE at the stack's DynamoDB table ("dynamodb");
// the local runs (`invoke local`, `offline` = `npm start`) have no AWS, so they default to "file"
// (sessions survive a restart of `npm start`; SESSION_DIR, default .local/sessions), or the shell's
// SESSION_STORE (memory or file): SESSION_TABLE only if the shell sets it (e.g. with DYNAMODB_ENDPOINT
// for a local DynamoDB), and a table always means DynamoDB to the app.
//
// SESSION_DIR: for the local runs an absolute path (the shell's SESSION_DIR, else .local/sessions, under
// the directory serverless was started in), whatever directory the function then runs in.
//
// Metrics: off by default for the local runs (a person reads those logs; the EMF document would be most
// of every line), on for package / deploy; the shell's METRICS wins either way (serverless.yml).
const commands = [];
for (const arg of process.argv.slice(2)) {
  if (arg.startsWith("-")) break;
  commands.push(arg);
}
const invokeLocal = commands[0] === "invoke" && commands[1] === "local";
const offline = commands[0] === "offline";
const local = invokeLocal || offline;

/** The value of `--param=<name>=…` / `--param <name>=…` on the command line, if given. */
function paramOnCommandLine(name) {
  const args = process.argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const value = arg === "--param" ? args[i + 1] : arg.startsWith("--param=") ? arg.slice(8) : undefined;
    if (value?.startsWith(`${name}=`)) return value.slice(name.length + 1);
  }
  return undefined;
}

const warned = new Set();
function warnOnce(text) {
  if (warned.has(text)) return;
  warned.add(text);
  process.stderr.write(`Warning: ${text}\n`);
}

/** A local-only setting's default: the shell's variable for local runs, else "" (unset). */
function localOnly(param, variable) {
  return () => {
    const shell = process.env[variable] ?? "";
    if (local) return shell;
    const given = paramOnCommandLine(param);
    if (given !== undefined && given !== "") {
      warnOnce(
        `--param=${param} puts ${variable}=${given} into the function. It is meant for local stand-ins: make sure the deployed function can reach it.`,
      );
    } else if (shell !== "") {
      warnOnce(
        `${variable} is set in this shell (${shell}) and ignored: it is for local runs (npm start, invoke local). Pass --param=${param}=… to deploy it anyway.`,
      );
    }
    return "";
  };
}

/** A TCP port from the environment variable `name`, or undefined when unset; anything else stops the command. */
function portFrom(name) {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return undefined;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    process.stderr.write(
      `Invalid configuration: ${name}=${JSON.stringify(raw)} (expected a TCP port, 1 to 65535)\n`,
    );
    process.exit(1);
  }
  return port;
}

/** A port nothing listens on now, from the system. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = require("node:net").createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The session stores serverless.yml knows (custom.sessionTable); the app's SESSION_STORE values. */
const SESSION_STORES = ["memory", "file", "dynamodb"];

/**
 * The `sessionStore` parameter's default: "dynamodb" (the stack's table) for package / deploy; for the
 * local runs the shell's SESSION_STORE when it is memory or file, else "file".
 */
function sessionStore() {
  const shell = process.env.SESSION_STORE ?? "";
  if (shell !== "" && !SESSION_STORES.includes(shell)) {
    process.stderr.write(
      `Invalid configuration: SESSION_STORE=${JSON.stringify(shell)} (expected one of ${SESSION_STORES.join(", ")})\n`,
    );
    process.exit(1);
  }
  if (!local) {
    if (shell !== "" && paramOnCommandLine("sessionStore") === undefined) {
      warnOnce(
        `SESSION_STORE is set in this shell (${shell}) and ignored: package / deploy keep sessions in the stack's DynamoDB table. Pass --param=sessionStore=${shell} to deploy that store anyway.`,
      );
    }
    return "dynamodb";
  }
  if (shell === "dynamodb") {
    // The stack's table cannot be looked up by serverless offline (nor by invoke local without AWS):
    // locally a table is named in the shell, and a SESSION_TABLE always means DynamoDB to the app.
    if ((process.env.SESSION_TABLE ?? "") === "") {
      warnOnce(
        "SESSION_STORE=dynamodb is set in this shell without SESSION_TABLE: local runs keep sessions in files instead. Name a table with SESSION_TABLE (and DYNAMODB_ENDPOINT for a local DynamoDB), or use the stack's with --param=sessionStore=dynamodb (invoke local only).",
      );
    }
    return "file";
  }
  return shell === "" ? "file" : shell;
}

/**
 * The `sessionDir` parameter's default (SESSION_DIR, the file store's directory): the shell's as it is
 * for package / deploy ("" = the app's default); for the local runs an absolute path, the shell's
 * SESSION_DIR or the app's default (.local/sessions) resolved against the directory serverless was
 * started in. The function's own working directory is no guide there: `invoke local` runs it inside
 * serverless-esbuild's build folder (.esbuild/.build-invoke-local), which every build rewrites.
 */
function sessionDir() {
  const shell = process.env.SESSION_DIR ?? "";
  if (!local) return shell;
  const { appConfig, shellCwd } = require("./app-config.cjs");
  return require("node:path").resolve(shellCwd, shell === "" ? appConfig().DEFAULT_SESSION_DIR : shell);
}

let lambdaPort;

module.exports = {
  /** serverless offline's HTTP port: PORT, else 3000 (`--httpPort` on the command line still wins). */
  httpPort: () => portFrom("PORT") ?? 3000,
  /**
   * serverless offline's second port, the Lambda invoke API: LAMBDA_PORT, else a free one, so two local
   * servers with different PORTs never collide on it (offline's own default, 3002, would).
   */
  lambdaPort: () => {
    // One port however often it is asked for. (offline-start.cjs says which port serverless offline
    // takes, once it knows the port is free.)
    lambdaPort ??= (async () => portFrom("LAMBDA_PORT") ?? (await freePort()))();
    return lambdaPort;
  },
  /** True for the commands that run the function on this machine (invoke local, offline). */
  local,
  /** True for `invoke local`, and for `offline` (`npm start`). */
  invokeLocal,
  offline,
  outputFileExtension: invokeLocal ? ".js" : ".mjs",
  outputBuildFolder: invokeLocal ? ".build-invoke-local" : ".build",
  sessionStore,
  sessionDir,
  /** The `metrics` parameter's default: the shell's METRICS, else off for the local runs and on otherwise. */
  metrics: () => process.env.METRICS ?? (local ? "off" : "on"),
  ampEndpoint: localOnly("ampEndpoint", "AMP_ENDPOINT"),
  dynamodbEndpoint: localOnly("dynamodbEndpoint", "DYNAMODB_ENDPOINT"),
};
