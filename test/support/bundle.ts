/** A TypeScript entry bundled by esbuild to one ES module a plain `node` (a child process) can run or import. */
export async function bundleForNode(
  entry: string,
  outfile: string,
  options: { nodePaths?: string[]; logLevel?: "warning" | "error" } = {},
): Promise<string> {
  const { build } = await import("esbuild");
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile,
    logLevel: options.logLevel ?? "warning",
    nodePaths: options.nodePaths,
    // CommonJS dependencies inside an ES module bundle call require(): give them one.
    banner: { js: "import { createRequire as __cr } from 'module'; const require = __cr(import.meta.url);" },
  });
  return outfile;
}
