// Per-command esbuild output settings, read by serverless.yml (custom.esbuild).
//
// Lambda, and serverless-offline (which uses the Lambda runtime's loader), load an ESM bundle named
// `.mjs` with no package.json beside it. `osls invoke local` can only load `<handler>.js` or `.cjs`,
// so for that one command the bundle is named `.js`: it is still ESM there, because this project's
// package.json says "type": "module". Such a `.js` bundle must never reach a deployment artifact (the
// Lambda runtime would load it as CommonJS first), so `invoke local` also builds into its own folder.
const args = process.argv.slice(2);
const command = args.indexOf("invoke");
const invokeLocal = command !== -1 && args[command + 1] === "local";

module.exports = {
  outputFileExtension: invokeLocal ? ".js" : ".mjs",
  outputBuildFolder: invokeLocal ? ".build-invoke-local" : ".build",
};
