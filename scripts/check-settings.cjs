// Checks the function's settings before any command builds, runs or deploys it (serverless.yml,
// custom.settingsChecked), with the application's own validation (src/config/, compiled once into
// dist/config/scripts.cjs: app-config.cjs): a bad value stops `npm start`, `invoke local`, `package` and `deploy` at once, with
// the same one line a deployed function's cold start would fail with, and exit status 1. Without this,
// `npm start` served an error on every request and `invoke local` hung.
//
// Then it prints the application's configuration warnings (configWarnings: SigV4 for a URL that is not
// AMP's, a variable that looks like a setting but is not, e.g. PROMETHEUS_ULR), one line each on stderr,
// for every command but `offline`: `invoke local` at its start, and `package` / `deploy` too, since a
// misspelling in the deploying shell means a setting that never reaches the function. `offline`
// (`npm start`) prints them itself once its ports are known to be free (offline-start.cjs), so that a
// port in use stops it with one line.
const { judge } = require("./app-config.cjs");
const { invokeLocal, offline } = require("./command-settings.cjs");

let printed = false;

module.exports = {
  checked: async ({ resolveVariable }) => {
    // (osls calls this again when a variable it asks for is not resolved yet: those first calls end here.)
    const environment = await resolveVariable("self:provider.environment");
    const region = await resolveVariable("self:provider.region");
    let warnings;
    try {
      ({ warnings } = judge(
        environment,
        region,
        invokeLocal ? "IS_LOCAL" : offline ? "IS_OFFLINE" : undefined,
      ));
    } catch (error) {
      if (error?.name !== "ConfigError") throw error;
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    // Each warning once per command, however often the variable is resolved.
    if (!offline && !printed) for (const warning of warnings) process.stderr.write(`${warning}\n`);
    printed = true;
    return "yes";
  },
};
