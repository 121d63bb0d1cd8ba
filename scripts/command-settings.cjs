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

module.exports = {
  outputFileExtension: invokeLocal ? ".js" : ".mjs",
  outputBuildFolder: invokeLocal ? ".build-invoke-local" : ".build",
  sessionStore: invokeLocal || offline ? "memory" : "dynamodb",
};
