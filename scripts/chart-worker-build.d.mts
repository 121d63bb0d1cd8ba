import type { Plugin } from "esbuild";

/** Builds the chart renderer's worker (see chart-worker-build.mjs): its code, or the file written. */
export function buildChartWorker(
  esbuild: typeof import("esbuild"),
  options: {
    root: string;
    outfile?: string;
    plugins?: Plugin[];
    target?: string | string[];
    minify?: boolean;
    external?: boolean;
  },
): Promise<string>;
