// Where `serverless offline` (`npm start`) listens, and the one line said when a port cannot be opened:
// shared by offline-start.cjs (which checks the ports are free before anything is built) and
// offline-invoke-guard.cjs (which then takes the Lambda invoke port). Its own module so that neither
// plugin requires the other: they run in that order, and each knows only these rules.
"use strict";

/** serverless-offline's own defaults (src/config/defaultOptions.js). */
const OFFLINE_DEFAULT_HTTP_PORT = 3000;
const OFFLINE_DEFAULT_LAMBDA_PORT = 3002;
const OFFLINE_DEFAULT_HOST = "localhost";
/** Hosts the guard may listen on as configured; any other (0.0.0.0, a LAN address) becomes 127.0.0.1. */
const LOOPBACK_BIND = new Set(["127.0.0.1", "localhost", "::1"]);

/** The lambdaPort serverless-offline will use: command line, custom.serverless-offline, its default. */
function configuredLambdaPort(service, options) {
  const custom = service.custom?.["serverless-offline"] ?? {};
  return options.lambdaPort ?? custom.lambdaPort ?? OFFLINE_DEFAULT_LAMBDA_PORT;
}

/**
 * Where the invoke guard listens: { port, host } (the invoke port, on loopback whatever --host says), or
 * undefined when lambdaPort is no TCP port (a socket path). offline-start.cjs checks the same address.
 */
function invokeAddress(service, options) {
  const port = Number(configuredLambdaPort(service, options));
  if (!Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  const custom = service.custom?.["serverless-offline"] ?? {};
  const host = String(options.host ?? custom.host ?? OFFLINE_DEFAULT_HOST);
  return { port, host: LOOPBACK_BIND.has(host) ? host : "127.0.0.1" };
}

/**
 * The one line for ports that cannot be opened: `failures` are { port, host, setting, error }, setting
 * as `PORT (or --httpPort)`.
 */
function portProblem(failures) {
  const inUse = failures.filter((failure) => failure.error.code === "EADDRINUSE");
  if (inUse.length === failures.length) {
    const ports = inUse.map(({ port, host }) => `port ${port} on ${host}`).join(" and ");
    const settings = inUse.map(({ setting }) => setting).join(" and ");
    const one = inUse.length === 1;
    return `${ports[0].toUpperCase()}${ports.slice(1)} ${one ? "is" : "are"} in use: set ${settings} to ${one ? "another port" : "other ports"}.`;
  }
  const { port, host, setting, error } = failures.find((failure) => failure.error.code !== "EADDRINUSE");
  const reason = error.code === "EACCES" ? "EACCES: permission denied" : (error.code ?? error.message);
  return `Port ${port} on ${host} cannot be opened (${reason}): set ${setting} to another port.`;
}

module.exports = {
  OFFLINE_DEFAULT_HTTP_PORT,
  OFFLINE_DEFAULT_HOST,
  configuredLambdaPort,
  invokeAddress,
  portProblem,
};
