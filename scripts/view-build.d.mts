/** The range chart view's HTML page, built with the given esbuild (see view-build.mjs). */
export function buildRangeView(esbuild: typeof import("esbuild")): Promise<string>;
