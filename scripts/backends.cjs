// The `backends` parameter (BACKENDS, src/config/backends.ts): several named servers, as a JSON
// object or the path of a file holding one. For a deployment:
//
// - a file goes into the function's package at the same relative path, where the function reads it
//   (its working directory is the package's root): `patterns` lists it for the function's package;
// - each backend's secret is granted to the role alone (scripts/secret-grant.cjs), and a backend's
//   credentials themselves are refused (they would sit in the template and the function's configuration);
// - the AMP workspaces the backends name are the deployment's workspaces (scripts/workspace-arns.cjs):
//   the role may query them, in their regions, as the function may.
//
// Read with the application's own rules (parseBackends, through scripts/app-config.cjs). No message
// repeats a secret or a header's value.
"use strict";

const { readFileSync } = require("node:fs");
const { isAbsolute, normalize, sep } = require("node:path");
const { local } = require("./command-settings.cjs");

function oneLine(message) {
  const error = new Error(message);
  error.stack = error.message;
  return error;
}

function text(value) {
  return value === undefined || value === null ? "" : String(value).trim();
}

/** A file the package can hold: a relative path inside the service directory. */
function packagedPath(value) {
  const path = normalize(value);
  if (isAbsolute(path) || path === ".." || path.startsWith(`..${sep}`)) {
    throw oneLine(
      `Invalid parameter backends (expected a JSON object, or the path of a file inside the service directory, relative to it: the function reads it from its package), not ${JSON.stringify(value)}`,
    );
  }
  return path;
}

/** The backends the parameter names, parsed as the function will (in Lambda's rules unless `isLocal`); [] when unset. */
function backendSpecs(value, isLocal = local) {
  const raw = text(value);
  if (raw === "") return [];
  let json = raw;
  if (!raw.startsWith("{")) {
    try {
      // Locally (invoke local, offline) any path this machine can read; a package holds its own files.
      json = readFileSync(isLocal ? raw : packagedPath(raw), "utf8");
    } catch (error) {
      if (error.code === undefined) throw error;
      throw oneLine(
        `Invalid parameter backends (expected a readable file: ${raw} could not be read, ${error.code})`,
      );
    }
  }
  try {
    return require("./app-config.cjs")
      .appConfig()
      .parseBackends(json, { inLambda: !isLocal, defaultRegion: "us-east-1" });
  } catch (error) {
    throw oneLine(`Invalid parameter backends (expected ${error.message})`);
  }
}

/** The function package's extra files: the backends file, when the parameter names one. */
function patterns(value, isLocal = local) {
  const raw = text(value);
  return raw === "" || raw.startsWith("{") || isLocal ? [] : [packagedPath(raw)];
}

/** The AMP workspace URLs among the backends (their regions with them), comma-separated. */
function workspaceUrls(value) {
  const { workspaceIdFromUrl } = require("./app-config.cjs").appConfig();
  return backendSpecs(value, true)
    .map((backend) => backend.url)
    .filter((url) => workspaceIdFromUrl(url) !== undefined)
    .join(",");
}

module.exports = {
  backendSpecs,
  patterns,
  workspaceUrls,
  /** functions.mcp.package.patterns: the backends file, if any. */
  packagePatterns: async ({ resolveVariable }) => patterns(await resolveVariable("param:backends")),
};
