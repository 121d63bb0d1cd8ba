// esbuild plugins for the bundles that ship (the function's, through serverless-esbuild's `plugins`
// setting, and the stdio bin's, scripts/build-stdio.mjs). Each takes work off a cold start without
// changing what the code does (BENCHMARKS.md, "Cold start"; bench case cold-start):
//
// - toolSchemasAtBuild: the tools' JSON Schemas, which zod makes on the first tools/list (a large share
//   of that request), are made once here and stored in the bundle in place of src/toolSchemaCache.ts.
//   The code that makes them is the code that would have run (src/toolSchemas.ts, compiled from the same
//   sources by the same esbuild), so they cannot differ from it.
// - ajvOnFirstUse: the MCP SDK's server module imports its Ajv provider, which evaluates Ajv and
//   ajv-formats at import although Ajv only ever checks elicitation answers, which this server never
//   asks for. Its imports get src/lazyAjvProvider.ts instead: the same class, which requires the SDK's
//   own provider on first use. That provider, Ajv with it, is bundled apart, as sdk-ajv-provider.cjs
//   beside the chunks that require it: not even parsed at a cold start. A build where the plugin
//   replaced nothing fails, so an SDK that moves its provider is noticed here, not as a slower start.
"use strict";

const { writeFile } = require("node:fs/promises");
const { dirname, join, relative, resolve, sep } = require("node:path");

const ROOT = join(__dirname, "..");
const TOOL_SCHEMAS = join(ROOT, "src", "toolSchemas.ts");
const SCHEMA_CACHE = join(ROOT, "src", "toolSchemaCache.ts");
const LAZY_AJV = join(ROOT, "src", "lazyAjvProvider.ts");
const SDK = `${sep}@modelcontextprotocol${sep}sdk${sep}`;
const SDK_PROVIDER = "@modelcontextprotocol/sdk/validation/ajv";
/** The SDK's Ajv provider bundled apart, written beside every output that holds src/lazyAjvProvider.ts. */
const PROVIDER_FILE = "sdk-ajv-provider.cjs";

/** The built-in tools' JSON Schemas (src/toolSchemas.ts's jsonSchemaTable), compiled and run once per build. */
async function jsonSchemaTable(esbuild) {
  const compiled = await esbuild.build({
    entryPoints: [TOOL_SCHEMAS],
    bundle: true,
    platform: "node",
    format: "cjs",
    write: false,
    logLevel: "silent",
  });
  const loaded = { exports: {} };
  new Function("module", "exports", "require", compiled.outputFiles[0].text)(loaded, loaded.exports, require);
  return loaded.exports.jsonSchemaTable();
}

/** @type {import("esbuild").Plugin} */
const toolSchemasAtBuild = {
  name: "tool-schemas-at-build",
  setup(build) {
    let table;
    build.onLoad({ filter: /[\\/]src[\\/]toolSchemaCache\.ts$/ }, async (args) => {
      if (args.path !== SCHEMA_CACHE) return undefined;
      table ??= jsonSchemaTable(build.esbuild);
      // A string parsed on first use: parsing JSON is cheaper than compiling the same object as code.
      const text = JSON.stringify(JSON.stringify(await table));
      return {
        loader: "js",
        contents: `let table;\nexport function precomputedJsonSchemas() {\n  table ??= JSON.parse(${text});\n  return table;\n}\n`,
      };
    });
  },
};

/** The SDK's Ajv provider (its CommonJS build) with Ajv and ajv-formats, as one CommonJS file. */
async function providerBundle(esbuild, options) {
  const built = await esbuild.build({
    entryPoints: [require.resolve(SDK_PROVIDER)],
    bundle: true,
    platform: "node",
    format: "cjs",
    target: options.target,
    minify: options.minify,
    write: false,
    logLevel: "silent",
  });
  return built.outputFiles[0].text;
}

/** @type {import("esbuild").Plugin} */
const ajvOnFirstUse = {
  name: "ajv-on-first-use",
  setup(build) {
    const options = build.initialOptions;
    // Where the stand-in landed: the outputs that hold it get the provider file beside them.
    options.metafile = true;
    let replacedInSdk = 0;
    build.onStart(() => {
      replacedInSdk = 0;
    });
    const provider = /(^@modelcontextprotocol\/sdk\/validation\/ajv$|[\\/]validation[\\/]ajv-provider\.js$)/;
    build.onResolve({ filter: provider }, (args) => {
      if (args.importer === LAZY_AJV) return { path: `./${PROVIDER_FILE}`, external: true };
      if (args.importer.includes(SDK)) replacedInSdk++;
      return { path: LAZY_AJV };
    });
    build.onEnd(async (result) => {
      if (result.errors.length > 0) return undefined;
      if (replacedInSdk === 0) {
        const text =
          "ajv-on-first-use replaced no import of the MCP SDK's Ajv provider: the SDK has moved it (update scripts/esbuild-plugins.cjs)";
        return { errors: [{ text }] };
      }
      const cwd = options.absWorkingDir ?? process.cwd();
      const stand = relative(cwd, LAZY_AJV).split(sep).join("/");
      const holders = Object.entries(result.metafile?.outputs ?? {})
        .filter(([, output]) => Object.hasOwn(output.inputs, stand))
        .map(([file]) => dirname(resolve(cwd, file)));
      if (holders.length === 0) return undefined;
      if (options.write === false) {
        return {
          errors: [
            { text: `ajv-on-first-use writes ${PROVIDER_FILE} beside the bundle: build with write enabled` },
          ],
        };
      }
      const text = await providerBundle(build.esbuild, options);
      await Promise.all([...new Set(holders)].map((dir) => writeFile(join(dir, PROVIDER_FILE), text)));
      return undefined;
    });
  },
};

module.exports = [toolSchemasAtBuild, ajvOnFirstUse];
