import { memoize } from "../util/memoize.js";

/**
 * The range view's HTML page (view/rangeView.ts and uPlot, built by scripts/view-build.mjs). In the
 * shipped bundles scripts/esbuild-plugins.cjs (viewAtBuild) replaces this module with one returning
 * the page built at bundle time, in a chunk of its own loaded by the first `resources/read`. Run from
 * sources (tests), the page is built here on first use, with the same script and the same esbuild.
 */
export const rangeViewHtml: () => Promise<string> = memoize(
  async () => {
    const [{ buildRangeView }, esbuild] = await Promise.all([
      import("../../scripts/view-build.mjs"),
      import("esbuild"),
    ]);
    return buildRangeView(esbuild);
  },
  { onRejection: "retry" },
);
