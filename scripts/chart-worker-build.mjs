// Builds the chart renderer's worker (src/charts/renderWorker.ts, started by src/charts/drawing.ts): one
// ES module that runs `serveRenders()` in a worker thread. The shipped bundles get it built beside the
// chunk that starts it, every package inside, its renderer's files beside it too
// (scripts/esbuild-plugins.cjs, chartWorkerBeside); a run from sources builds it on first use with its
// packages left to node_modules (src/charts/workerFile.ts).

/** The worker's entry: its one top-level call (src/ modules run nothing when imported). */
const ENTRY = 'import { serveRenders } from "./src/charts/renderWorker.ts";\nserveRenders();\n';

/**
 * Builds the worker from the sources under `root` with `esbuild` (the build's own instance, or the
 * package). `outfile` set: written there (with `plugins`); else its code is returned. `external`: its
 * packages are imported at run time, not bundled.
 */
export async function buildChartWorker(esbuild, options) {
  const { root, outfile, plugins = [], target = "node20", minify = false, external = false } = options;
  const built = await esbuild.build({
    absWorkingDir: root,
    stdin: { contents: ENTRY, resolveDir: root, sourcefile: "chart-worker.ts", loader: "ts" },
    ...(outfile === undefined ? { outdir: root, write: false } : { outfile, write: true }),
    bundle: true,
    format: "esm",
    platform: "node",
    target,
    minify,
    mainFields: ["module", "main"],
    ...(external ? { packages: "external" } : {}),
    // CommonJS dependencies inside an ES module bundle call require(): give them one.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    plugins,
    logLevel: "silent",
  });
  return outfile === undefined ? built.outputFiles[0].text : outfile;
}
