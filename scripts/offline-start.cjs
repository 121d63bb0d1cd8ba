// A local serverless plugin (serverless.yml `plugins`, listed first) for the start of `serverless offline`
// (`npm start`):
//
// 1. Ports. Before anything is built or printed, it checks that the two ports serverless offline will
//    listen on are free: the HTTP port (PORT / --httpPort, default 3000) and the Lambda invoke port
//    (LAMBDA_PORT / --lambdaPort), by listening on each (on the host each will be served on) and closing
//    again. One in use stops the command at once with one line naming the port and the setting that
//    moves it, exit status 1:
//      Port 3000 on 127.0.0.1 is in use: set PORT (or --httpPort) to another port.
//    Without this, serverless-esbuild bundled first, serverless offline printed its route table and then
//    a stack trace, and the process exited under esbuild's service, which now and then added Go's
//    "fatal error: all goroutines are asleep - deadlock!" and a goroutine dump. Here no esbuild service
//    runs yet: this plugin's hook runs before serverless-esbuild's (hooks of one event run in the order
//    of `plugins`), and the settings check reads the compiled configuration (dist/config/scripts.cjs,
//    rebuilt by a one-shot esbuild process only when stale: app-config.cjs). The invoke guard (offline-invoke-guard.cjs, next in the list) then takes the
//    invoke port at once; serverless offline takes the HTTP port about a second later, after the build.
// 2. Start lines, on stderr, once the ports are free: the application's configuration warnings
//    (configWarnings over the shell's variables and the function's: a misspelled PROMETHEUS_ULR lives in
//    the shell), then one line saying which Prometheus the tools query and where sessions live, as the
//    stdio entry says too:
//      Prometheus: http://127.0.0.1:9090, auth none (plain Prometheus: …); sessions: file .local/sessions
//    and the Lambda invoke port serverless offline takes:
//      serverless offline: Lambda invoke API on 127.0.0.1:<port> (LAMBDA_PORT)
//
// Every other command is untouched (check-settings.cjs prints their warnings).
"use strict";

const { createServer } = require("node:net");
const { judge, targetLine } = require("./app-config.cjs");
const {
  OFFLINE_DEFAULT_HOST,
  OFFLINE_DEFAULT_HTTP_PORT,
  invokeAddress,
  portProblem,
} = require("./offline-ports.cjs");

/** Listens on `port` on `host` and closes again: undefined when that worked, else the error. */
function probe(port, host) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", resolve);
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}

/** `127.0.0.1`, `[::1]`: a host as it goes before `:port`. */
function hostText(host) {
  return host.includes(":") ? `[${host}]` : host;
}

/** Writes `line` and ends the command: nothing is built or listening yet, so nothing else prints. */
function stop(line) {
  process.stderr.write(`${line}\n`);
  process.exit(1);
}

class OfflineStart {
  constructor(serverless, options) {
    this.serverless = serverless;
    this.options = options;
    this.started = false;
    // `serverless offline start` runs offline:start:init; plain `serverless offline` runs offline:start.
    this.hooks = {
      "before:offline:start": () => this.start(),
      "before:offline:start:init": () => this.start(),
    };
  }

  async start() {
    if (this.started) return;
    this.started = true;
    const { service } = this.serverless;
    const custom = service.custom?.["serverless-offline"] ?? {};
    // serverless-offline's order of precedence: command line, custom.serverless-offline, its defaults.
    const host = String(this.options.host ?? custom.host ?? OFFLINE_DEFAULT_HOST);
    const httpPort = Number(this.options.httpPort ?? custom.httpPort ?? OFFLINE_DEFAULT_HTTP_PORT);
    const ports = [];
    if (Number.isInteger(httpPort) && httpPort > 0 && httpPort < 65536) {
      ports.push({ port: httpPort, host, setting: "PORT (or --httpPort)" });
    }
    // Where the invoke guard will listen (undefined: a socket path, no TCP port).
    const invoke = invokeAddress(service, this.options);
    if (invoke !== undefined) ports.push({ ...invoke, setting: "LAMBDA_PORT (or --lambdaPort)" });
    if (ports.length === 2 && ports[0].port === ports[1].port) {
      stop(
        `PORT (--httpPort) and LAMBDA_PORT (--lambdaPort) are both ${httpPort}: set one of them to another port.`,
      );
    }
    const failures = [];
    for (const entry of ports) {
      const error = await probe(entry.port, entry.host);
      if (error !== undefined) failures.push({ ...entry, error });
    }
    if (failures.length > 0) stop(portProblem(failures));

    let judged;
    try {
      judged = judge(service.provider.environment, service.provider.region, "IS_OFFLINE");
    } catch (error) {
      // check-settings.cjs has stopped a bad setting already; this is a safety net.
      if (error?.name !== "ConfigError") throw error;
      stop(error.message);
    }
    const lines = [...judged.warnings, targetLine(judged.config)];
    if (invoke !== undefined) {
      lines.push(
        `serverless offline: Lambda invoke API on ${hostText(invoke.host)}:${invoke.port} (LAMBDA_PORT)`,
      );
    }
    process.stderr.write(`${lines.join("\n")}\n`);
  }
}

module.exports = OfflineStart;
