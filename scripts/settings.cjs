// The application parameters whose default is one fixed value (serverless.yml, params.default): the
// shell's variable of the same name, else the default the application's schema gives it
// (src/config/schema.ts, compiled: scripts/app-config.cjs). serverless.yml repeats no default: it names
// the variable here, `${file(./scripts/settings.cjs):PROMETHEUS_AUTH}`, and the schema answers.
//
// The function gets that value, so its environment says what it runs with; the dashboard and the
// ServerErrors alarm read METRICS_NAMESPACE and SERVICE_NAME the same way.
"use strict";

const { appConfig, shell } = require("./app-config.cjs");

/** The shell's value of `name` as given (an empty one means "unset" to the application), else the default. */
function settingOrDefault(name) {
  const { FIXED_DEFAULTS } = appConfig();
  if (!Object.hasOwn(FIXED_DEFAULTS, name))
    throw new Error(`scripts/settings.cjs: ${name} has no fixed default`);
  return shell[name] ?? FIXED_DEFAULTS[name];
}

// One parameter per setting the schema gives a fixed default (FIXED_DEFAULTS, src/config/scripts.ts).
module.exports = Object.fromEntries(
  Object.keys(appConfig().FIXED_DEFAULTS).map((name) => [name, () => settingOrDefault(name)]),
);
