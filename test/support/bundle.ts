import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import type { BuildOptions, Metafile, Plugin } from "esbuild";

/**
 * A TypeScript entry bundled by esbuild to an ES module a plain `node` (a child process) can run or
 * import: `outfile` (an `.mjs` name), with the chunks of what it imports dynamically beside it. Split as
 * the shipped bundles are: without splitting, esbuild wraps every module an `import()` reaches (a tool's
 * body, and zod with it) in a lazy initialiser, and the MCP SDK's schemas, built at load, then met zod
 * not yet initialised ("is not a constructor").
 */
export async function bundleForNode(
  entry: string,
  outfile: string,
  options: { nodePaths?: string[]; logLevel?: "warning" | "error" } = {},
): Promise<string> {
  const { build } = await import("esbuild");
  await build({
    entryPoints: { [basename(outfile, ".mjs")]: entry },
    bundle: true,
    splitting: true,
    platform: "node",
    format: "esm",
    outdir: dirname(outfile),
    outExtension: { ".js": ".mjs" },
    // Packages' ES module builds, as the shipped bundles take them: a dynamic import() of a CommonJS
    // build in a split bundle has its exports under `default` only.
    mainFields: ["module", "main"],
    logLevel: options.logLevel ?? "warning",
    nodePaths: options.nodePaths,
    // CommonJS dependencies inside an ES module bundle call require(): give them one.
    banner: { js: "import { createRequire as __cr } from 'module'; const require = __cr(import.meta.url);" },
  });
  return outfile;
}

/**
 * Bundles as serverless.yml's esbuild settings bundle the function (ES modules, chunks, minified, the
 * shipped plugins of scripts/esbuild-plugins.cjs) into `outdir`, from `root`: named entry points, or a
 * `stdin` entry. Resolves to esbuild's metafile: which sources each output holds, and what it imports.
 */
export async function bundleAsShipped(
  root: string,
  outdir: string,
  input: Pick<BuildOptions, "entryPoints" | "stdin">,
): Promise<Metafile> {
  const { build } = await import("esbuild");
  // From `root`, not from this file: the benchmark runs this module bundled elsewhere.
  const plugins = createRequire(join(root, "package.json"))("./scripts/esbuild-plugins.cjs") as Plugin[];
  const { metafile } = await build({
    ...input,
    absWorkingDir: root,
    outdir,
    bundle: true,
    minify: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    outExtension: { ".js": ".mjs" },
    mainFields: ["module", "main"],
    logLevel: "silent",
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    plugins,
    metafile: true,
  });
  return metafile;
}

/**
 * The outputs a bundle's `entry` (its entry point, as the metafile names it) loads before it runs: the
 * entry's output and what it imports statically (ESM `import`, which Lambda's init phase loads),
 * transitively. What they `import()` loads later.
 */
export function loadedStatically(metafile: Metafile, entry: string): string[] {
  const outputs = metafile.outputs;
  const start = Object.keys(outputs).find((name) => outputs[name]?.entryPoint === entry);
  if (start === undefined) throw new Error(`no output for ${entry}`);
  const seen = new Set<string>();
  const visit = (name: string) => {
    const output = outputs[name];
    if (seen.has(name) || output === undefined) return;
    seen.add(name);
    for (const imported of output.imports) if (imported.kind === "import-statement") visit(imported.path);
  };
  visit(start);
  return [...seen];
}
