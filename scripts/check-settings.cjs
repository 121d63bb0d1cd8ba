// Checks the function's settings before any command builds, runs or deploys it (serverless.yml,
// custom.settingsChecked), with the application's own validation (src/config.ts, bundled here on the
// fly): a bad value stops `npm start`, `invoke local`, `package` and `deploy` at once, with the same
// one line a deployed function's cold start would fail with, and exit status 1. Without this,
// `npm start` served an error on every request and `invoke local` hung.
const { buildSync } = require("esbuild");
const { join } = require("node:path");

/** `loadConfig` from src/config.ts, compiled once per process. */
function loadConfig() {
  const { outputFiles } = buildSync({
    entryPoints: [join(__dirname, "..", "src", "config.ts")],
    bundle: true,
    platform: "node",
    format: "cjs",
    write: false,
    logLevel: "silent",
  });
  const module = { exports: {} };
  new Function("module", "exports", "require", outputFiles[0].text)(module, module.exports, require);
  return module.exports.loadConfig;
}

module.exports = {
  checked: async ({ resolveVariable }) => {
    const environment = await resolveVariable("self:provider.environment");
    const region = await resolveVariable("self:provider.region");
    const env = { AWS_REGION: String(region) };
    for (const [name, value] of Object.entries(environment ?? {})) {
      // Values CloudFormation fills in at deploy time (the table's Ref) are not the app's to check.
      if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
        env[name] = String(value);
      }
    }
    try {
      loadConfig()(env);
    } catch (error) {
      if (error?.name !== "ConfigError") throw error;
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    return "yes";
  },
};
