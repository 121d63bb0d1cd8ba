import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { memoize } from "../util/memoize.js";

/**
 * The file the chart renderer's worker runs (drawing.ts). In the shipped bundles
 * scripts/esbuild-plugins.cjs (chartWorkerBeside) replaces this module with one naming
 * chart-worker.mjs, which it builds beside the chunk that holds this one. Run from sources (tests, the
 * benchmark's bundle, an earlier revision built by the benchmark), the worker is built here on first
 * use by the same script (scripts/chart-worker-build.mjs), its packages left to node_modules, into
 * node_modules/.cache under a name made of its content.
 */
export const chartWorkerFile: () => Promise<URL> = memoize(
  async () => {
    const root = sourceRoot();
    const [{ buildChartWorker }, esbuild] = await Promise.all([
      import("../../scripts/chart-worker-build.mjs"),
      import("esbuild"),
    ]);
    const code = await buildChartWorker(esbuild, { root, external: true });
    const dir = join(root, "node_modules", ".cache", "chart-worker");
    const file = join(
      dir,
      `chart-worker-${createHash("sha256").update(code).digest("hex").slice(0, 16)}.mjs`,
    );
    if (!existsSync(file)) {
      await mkdir(dir, { recursive: true });
      // Written whole, then named: another process building the same worker never reads half of it.
      const partial = `${file}.${process.pid}.partial`;
      await writeFile(partial, code);
      await rename(partial, file);
    }
    return pathToFileURL(file);
  },
  { onRejection: "retry" },
);

/** The folder whose src/charts holds the worker's sources: this module's, or one above it (a bundle's). */
function sourceRoot(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (let dir = here; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "src", "charts", "renderWorker.ts"))) return dir;
    if (dirname(dir) === dir) throw new Error(`the chart worker's sources are not above ${here}`);
  }
}
