// esbuild plugins for the bundles that ship (the function's, through serverless-esbuild's `plugins`
// setting, and the stdio bin's, scripts/build-stdio.mjs). Each takes work off a cold start without
// changing what the code does (BENCHMARKS.md, "Cold start"; bench case cold-start):
//
// - toolSchemasAtBuild: the tools' JSON Schemas, which zod makes on the first tools/list (a large share
//   of that request), are made once here and stored in the bundle in place of src/mcp/toolSchemaCache.ts.
//   The code that makes them is the code that would have run (src/mcp/toolSchemas.ts, compiled from the same
//   sources by the same esbuild), so they cannot differ from it.
// - ajvOnFirstUse: the MCP SDK's server module imports its Ajv provider, which evaluates Ajv and
//   ajv-formats at import although Ajv only ever checks elicitation answers, which this server never
//   asks for. Its imports get src/mcp/lazyAjvProvider.ts instead: the same class, which requires the SDK's
//   own provider on first use. That provider, Ajv with it, is bundled apart, as sdk-ajv-provider.cjs
//   beside the chunks that require it: not even parsed at a cold start. A build where the plugin
//   replaced nothing fails, so an SDK that moves its provider is noticed here, not as a slower start.
// - chartAssetsBeside: the chart renderer's files (resvg's WebAssembly, the DejaVu Sans font) are copied
//   beside the chunk that reads them, and src/charts/assets.ts reads those copies: a bundle has no
//   node_modules. Only a bundle that holds the renderer gets them.
// - chartWorkerBeside: PlotRangeQuery draws in a worker thread (src/charts/drawing.ts), which runs a file
//   of its own: built here (scripts/chart-worker-build.mjs, the renderer and its packages inside, its
//   files beside it by chartAssetsBeside) as chart-worker.mjs beside the chunk that starts it, whose
//   src/charts/workerFile.ts is replaced by one naming that file. Only a bundle that draws charts gets it.
// - viewAtBuild: the MCP Apps view's HTML page (view/, built by scripts/view-build.mjs) goes in the
//   bundle in place of src/views/viewHtml.ts, which run from sources builds it on first use. That
//   module is imported only by the first resources/read, so the page is a chunk of its own.
"use strict";

const { copyFile, writeFile } = require("node:fs/promises");
const { dirname, join, relative, resolve, sep } = require("node:path");

const ROOT = join(__dirname, "..");
const TOOL_SCHEMAS = join(ROOT, "src", "mcp", "toolSchemas.ts");
const SCHEMA_CACHE = join(ROOT, "src", "mcp", "toolSchemaCache.ts");
const LAZY_AJV = join(ROOT, "src", "mcp", "lazyAjvProvider.ts");
const SDK = `${sep}@modelcontextprotocol${sep}sdk${sep}`;
const SDK_PROVIDER = "@modelcontextprotocol/sdk/validation/ajv";
const CHART_ASSETS = join(ROOT, "src", "charts", "assets.ts");
const VIEW_HTML = join(ROOT, "src", "views", "viewHtml.ts");
const CHART_WORKER_FILE = join(ROOT, "src", "charts", "workerFile.ts");
/** The chart worker's file, beside the chunk that starts it. */
const CHART_WORKER = "chart-worker.mjs";
/** The renderer's files, by the name their copies take beside the chunk that reads them. */
const CHART_FILES = {
  "resvg.wasm": "@resvg/resvg-wasm/index_bg.wasm",
  "DejaVuSans.ttf": "dejavu-fonts-ttf/ttf/DejaVuSans.ttf",
};
/** The SDK's Ajv provider bundled apart, written beside every output that holds src/mcp/lazyAjvProvider.ts. */
const PROVIDER_FILE = "sdk-ajv-provider.cjs";

/** The built-in tools' JSON Schemas (src/mcp/toolSchemas.ts's jsonSchemaTable), compiled and run once per build. */
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
    build.onLoad({ filter: /[\\/]src[\\/]mcp[\\/]toolSchemaCache\.ts$/ }, async (args) => {
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

/** The directories of the outputs whose inputs include `source` (the build's metafile). */
function holdersOf(result, options, source) {
  const cwd = options.absWorkingDir ?? process.cwd();
  const input = relative(cwd, source).split(sep).join("/");
  const holders = Object.entries(result.metafile?.outputs ?? {})
    .filter(([, output]) => Object.hasOwn(output.inputs, input))
    .map(([file]) => dirname(resolve(cwd, file)));
  return [...new Set(holders)];
}

/** @type {import("esbuild").Plugin} */
const chartAssetsBeside = {
  name: "chart-assets-beside",
  setup(build) {
    const options = build.initialOptions;
    options.metafile = true;
    build.onLoad({ filter: /[\\/]src[\\/]charts[\\/]assets\.ts$/ }, (args) => {
      if (args.path !== CHART_ASSETS) return undefined;
      const reads = Object.keys(CHART_FILES)
        .map((name) => `readFile(new URL(${JSON.stringify(`./${name}`)}, import.meta.url))`)
        .join(", ");
      return {
        loader: "js",
        contents: `import { readFile } from "node:fs/promises";
export async function rendererAssets() {
  const [wasm, font] = await Promise.all([${reads}]);
  return { wasm, font };
}
`,
      };
    });
    build.onEnd(async (result) => {
      if (result.errors.length > 0) return undefined;
      const holders = holdersOf(result, options, CHART_ASSETS);
      if (holders.length === 0) return undefined;
      if (options.write === false) {
        return {
          errors: [{ text: "chart-assets-beside copies files beside the bundle: build with write enabled" }],
        };
      }
      const copies = holders.flatMap((dir) =>
        Object.entries(CHART_FILES).map(([name, from]) => copyFile(require.resolve(from), join(dir, name))),
      );
      await Promise.all(copies);
      return undefined;
    });
  },
};

/** @type {import("esbuild").Plugin} */
const chartWorkerBeside = {
  name: "chart-worker-beside",
  setup(build) {
    const options = build.initialOptions;
    options.metafile = true;
    build.onLoad({ filter: /[\\/]src[\\/]charts[\\/]workerFile\.ts$/ }, (args) => {
      if (args.path !== CHART_WORKER_FILE) return undefined;
      return {
        loader: "js",
        contents: `export async function chartWorkerFile() {\n  return new URL(${JSON.stringify(`./${CHART_WORKER}`)}, import.meta.url);\n}\n`,
      };
    });
    build.onEnd(async (result) => {
      if (result.errors.length > 0) return undefined;
      const holders = holdersOf(result, options, CHART_WORKER_FILE);
      if (holders.length === 0) return undefined;
      if (options.write === false) {
        return {
          errors: [
            {
              text: "chart-worker-beside writes the chart worker beside the bundle: build with write enabled",
            },
          ],
        };
      }
      const { buildChartWorker } = await import("./chart-worker-build.mjs");
      const worker = (dir) =>
        buildChartWorker(build.esbuild, {
          root: ROOT,
          outfile: join(dir, CHART_WORKER),
          plugins: [chartAssetsBeside],
          target: options.target,
          minify: options.minify,
        });
      await Promise.all(holders.map(worker));
      return undefined;
    });
  },
};

/** @type {import("esbuild").Plugin} */
const viewAtBuild = {
  name: "view-at-build",
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/]views[\\/]viewHtml\.ts$/ }, async (args) => {
      if (args.path !== VIEW_HTML) return undefined;
      const { buildRangeView } = await import("./view-build.mjs");
      const page = JSON.stringify(await buildRangeView(build.esbuild));
      return { loader: "js", contents: `export async function rangeViewHtml() {\n  return ${page};\n}\n` };
    });
  },
};

module.exports = [toolSchemasAtBuild, ajvOnFirstUse, chartAssetsBeside, chartWorkerBeside, viewAtBuild];
