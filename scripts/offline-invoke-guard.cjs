// A local serverless plugin (serverless.yml `plugins`, after offline-start.cjs and before
// serverless-esbuild, so it holds the invoke port from the moment offline-start.cjs found it free) that
// keeps web pages away from serverless offline's Lambda invoke port.
//
// serverless offline opens a second HTTP server, on `lambdaPort`, that emulates the Lambda Invoke API
// (POST /2015-03-31/functions/<name>/invocations, POST /2014-11-13/functions/<name>/invoke-async/): what
// the AWS SDK's `Invoke` or `aws lambda invoke --endpoint-url` call against `npm start`. Its payload
// reaches the handler as a direct invocation, to which the HTTP rules of /mcp (Host, Origin) cannot
// apply: the handler never sees the invoke request's headers. And that server answers any Origin with
// `access-control-allow-origin: <that origin>` (its routes take serverless-offline's global CORS
// options, `corsAllowOrigin` defaulting to "*", which hapi reflects). So any web page the developer
// opens could POST a `tools/call` there (Content-Type text/plain: no preflight), read the answer, and
// have the developer's own AWS credentials sign the queries; DNS rebinding (Host: rebind.attacker.example)
// gets the same.
//
// The refusal must happen in front of that server. serverless-offline offers no hook or option for it:
// the hapi server is private to its Lambda class (no public accessor, no `onRequest` extension point),
// and its CORS and `host` options are shared with the API Gateway emulation on httpPort, which must keep
// its own behaviour (/mcp). So, the least invasive robust design, using only public interfaces:
//
// - Before serverless-offline starts (before:offline:start[:init]), this plugin sets the `lambdaPort`
//   option (the CLI options object every plugin shares; the command line's --lambdaPort wins over
//   custom.serverless-offline there, so that is where the value must go) to a Unix domain socket in a
//   fresh private (0700) temporary directory, on Windows a named pipe. serverless-offline passes
//   lambdaPort through to hapi, which listens on a socket path given as its port (a documented hapi
//   option). serverless-offline's own invoke server is then out of reach of any browser (nothing
//   reaches it over TCP) and, on Unix, of other local users. The directory goes when the process exits
//   (a SIGKILL leaves it behind, empty but for the dead socket).
// - The plugin listens on the invoke port itself (the same number: LAMBDA_PORT, --lambdaPort, or
//   custom.serverless-offline.lambdaPort), on loopback only (127.0.0.1 when --host names anything but
//   127.0.0.1, ::1 or localhost: the invoke API has no authentication), and forwards to that socket every request
//   that a browser cannot have sent. It refuses with 403 (a short JSON error, no access-control-allow-*
//   header) a request that
//     - carries an Origin header: browsers send one with every cross-origin request and every POST; the
//       AWS SDK and CLI never do;
//     - carries Sec-Fetch-Site, Sec-Fetch-Dest or Sec-Fetch-User, or a Sec-Fetch-Mode other than `cors`:
//       a browser's fetch metadata. (`Sec-Fetch-Mode: cors` alone is what Node's own fetch sends with
//       every request, e.g. through aws-sigv4-fetch; a browser's cors-mode request to this port always
//       carries Origin and Sec-Fetch-Site too, and is refused for those.)
//     - has a Host that is not a loopback name (127.0.0.1, localhost, [::1], with any port): DNS
//       rebinding, or a caller from another machine;
//     - is an OPTIONS request: the invoke port answers no CORS preflight.
//   Everything else (the SDK's and the CLI's requests) goes through unchanged, and the answer comes back
//   unchanged.
//
// `serverless invoke local` and every other command are untouched: the plugin only acts on `offline`.
"use strict";

const { mkdtempSync, rmSync } = require("node:fs");
const { createServer, request: httpRequest } = require("node:http");
const { tmpdir } = require("node:os");
const { join } = require("node:path");
const { randomBytes } = require("node:crypto");
const { configuredLambdaPort, invokeAddress, portProblem } = require("./offline-ports.cjs");

/** The names a Host header may carry (without its port) for a request to be served. */
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);
/** Hop-by-hop headers, not forwarded by a proxy (RFC 9110, 7.6.1). */
const HOP_BY_HOP = [
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
];

/** The name part of a Host header value, lower-cased: `127.0.0.1:3002` → `127.0.0.1`, `[::1]:80` → `[::1]`. */
function hostName(host) {
  const value = host.trim().toLowerCase();
  if (value.startsWith("[")) {
    const end = value.indexOf("]");
    return end === -1 ? value : value.slice(0, end + 1);
  }
  const colon = value.indexOf(":");
  return colon === -1 ? value : value.slice(0, colon);
}

/** Why a request to the invoke port is refused, or undefined when it may go through. */
function refusal(req) {
  const headers = req.headers;
  if (req.method === "OPTIONS") return "the Lambda invoke port answers no CORS preflight";
  if (headers.origin !== undefined) return "the request carries an Origin header (a web page sent it)";
  for (const name of ["sec-fetch-site", "sec-fetch-dest", "sec-fetch-user"]) {
    if (headers[name] !== undefined) return `the request carries ${name} (a web page sent it)`;
  }
  const mode = headers["sec-fetch-mode"];
  if (mode !== undefined && mode.trim().toLowerCase() !== "cors") {
    return "the request carries a browser's sec-fetch-mode (a web page sent it)";
  }
  const host = headers.host;
  if (host === undefined || !LOOPBACK_HOSTS.has(hostName(host))) {
    return `its Host (${host === undefined ? "none" : JSON.stringify(host)}) is not a loopback name`;
  }
  return undefined;
}

function sendJson(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
    // The SDK names the error by this header (as Lambda's own AccessDeniedException).
    ...(status === 403 ? { "x-amzn-errortype": "AccessDeniedException" } : {}),
    connection: "close",
  });
  res.end(text);
}

function withoutHopByHop(headers) {
  const copy = { ...headers };
  for (const name of HOP_BY_HOP) delete copy[name];
  return copy;
}

class OfflineInvokeGuard {
  constructor(serverless, options, utils) {
    this.serverless = serverless;
    this.options = options;
    this.log = utils?.log;
    this.started = false;
    // `serverless offline start` runs offline:start:init; plain `serverless offline` runs offline:start,
    // whose serverless-offline hook only returns when the server stops: both need the guard before.
    this.hooks = {
      "before:offline:start": () => this.start(),
      "before:offline:start:init": () => this.start(),
    };
  }

  notice(text) {
    if (this.log?.notice) this.log.notice(text);
    else process.stderr.write(`${text}\n`);
  }

  async start() {
    if (this.started) return;
    this.started = true;
    const address = invokeAddress(this.serverless.service, this.options);
    if (address === undefined) {
      // Already a socket path (or pipe): out of a browser's reach as it is.
      this.notice(
        `Lambda invoke API on ${configuredLambdaPort(this.serverless.service, this.options)}: not a TCP port, left as it is`,
      );
      return;
    }
    const { port, host: bindHost } = address;

    const socketPath = privateSocket();
    const server = createServer((req, res) => this.forward(req, res, socketPath));
    // Invocations may run as long as the function's timeout allows; only idle connections are cut.
    server.requestTimeout = 0;
    // WebSocket upgrades and CONNECT: no such thing on the invoke API (unhandled, Node closes them).
    try {
      await new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, bindHost, () => resolve());
      });
    } catch (error) {
      // offline-start.cjs found the port free a moment ago; something took it since. Say so in the same
      // one line and stop. (A thrown error would leave the process hanging, or printing a stack.)
      process.stderr.write(
        `${portProblem([{ port, host: bindHost, setting: "LAMBDA_PORT (or --lambdaPort)", error }])}\n`,
      );
      process.exit(1);
    }
    server.unref();
    // serverless-offline's invoke server listens on the socket (hapi takes a path as its port).
    this.options.lambdaPort = socketPath;
    this.notice(
      `Lambda invoke API guarded on http://${bindHost.includes(":") ? `[${bindHost}]` : bindHost}:${port}` +
        " (loopback callers without browser headers only; scripts/offline-invoke-guard.cjs)",
    );
  }

  forward(req, res, socketPath) {
    const reason = refusal(req);
    if (reason !== undefined) {
      req.resume();
      this.notice(`Lambda invoke port: refused ${req.method} ${req.url}: ${reason}`);
      sendJson(res, 403, {
        Type: "User",
        message: `Forbidden: ${reason}. The Lambda invoke port serves the AWS SDK and CLI on this machine, not browsers.`,
      });
      return;
    }
    const upstream = httpRequest(
      { socketPath, method: req.method, path: req.url, headers: withoutHopByHop(req.headers) },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, withoutHopByHop(answer.headers));
        answer.pipe(res);
        answer.once("error", () => res.destroy());
      },
    );
    upstream.once("error", (error) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      sendJson(res, 502, {
        Type: "Service",
        message: `serverless offline's Lambda server: ${error.message}`,
      });
    });
    req.once("error", () => upstream.destroy());
    res.once("close", () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  }
}

/** A fresh socket path only this user can reach, removed when the process exits. */
function privateSocket() {
  if (process.platform === "win32") {
    return `\\\\.\\pipe\\sls-offline-invoke-${process.pid}-${randomBytes(8).toString("hex")}`;
  }
  // mkdtemp creates the directory with mode 0700: other local users cannot connect to the socket in it.
  const dir = mkdtempSync(join(tmpdir(), "sls-invoke-"));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  return join(dir, "lambda.sock");
}

module.exports = OfflineInvokeGuard;
module.exports.refusal = refusal;
