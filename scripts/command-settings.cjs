// Per-command settings, read by serverless.yml (custom.esbuild, params.default.sessionStore).
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
// the local runs (`invoke local`, `offline` = `npm start`) have no AWS, so they default to "memory":
// SESSION_TABLE only if the shell sets it (e.g. with DYNAMODB_ENDPOINT for a local DynamoDB).
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

let lambdaPort;

module.exports = {
  /** serverless offline's HTTP port: PORT, else 3000 (`--httpPort` on the command line still wins). */
  httpPort: () => portFrom("PORT") ?? 3000,
  /**
   * serverless offline's second port, the Lambda invoke API: LAMBDA_PORT, else a free one, so two local
   * servers with different PORTs never collide on it (offline's own default, 3002, would).
   */
  lambdaPort: async () => {
    if (lambdaPort === undefined) {
      lambdaPort = portFrom("LAMBDA_PORT") ?? (await freePort());
      if (offline) {
        process.stderr.write(
          `serverless offline: Lambda invoke API on 127.0.0.1:${lambdaPort} (LAMBDA_PORT)\n`,
        );
      }
    }
    return lambdaPort;
  },
  /** True for the commands that run the function on this machine (invoke local, offline). */
  local,
  outputFileExtension: invokeLocal ? ".js" : ".mjs",
  outputBuildFolder: invokeLocal ? ".build-invoke-local" : ".build",
  sessionStore: local ? "memory" : "dynamodb",
  ampEndpoint: localOnly("ampEndpoint", "AMP_ENDPOINT"),
  dynamodbEndpoint: localOnly("dynamodbEndpoint", "DYNAMODB_ENDPOINT"),
};
