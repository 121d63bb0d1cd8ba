// Bundles the stdio entry (src/stdio/stdioMain.ts, which starts src/stdio/stdio.ts's server) into dist/stdio/stdio.js,
// the target of the `prometheus-mcp-stdio` bin. `npm ci` runs it (the `prepare` script), so a fresh
// clone's bin works without another step.
// The AWS SDK clients go to chunks loaded on first use, as in the Lambda bundle.
// `--if-stale` (what `npm run stdio` passes) builds only when a source is newer than the bundle.
import { chmod, readdir, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const ENTRY_OUT = join(root, "dist/stdio/stdio.js");
const SOURCES = [
  "src",
  "tools",
  "package.json",
  "package-lock.json",
  "scripts/build-stdio.mjs",
  "scripts/esbuild-plugins.cjs",
];

/** The newest modification time among the sources the bundle is made from. */
async function newestSource() {
  let newest = 0;
  for (const source of SOURCES) {
    const path = join(root, source);
    const info = await stat(path).catch(() => undefined);
    if (info === undefined) continue;
    const files = info.isDirectory()
      ? (await readdir(path, { recursive: true })).map((name) => join(path, name))
      : [path];
    for (const file of files) newest = Math.max(newest, (await stat(file)).mtimeMs);
  }
  return newest;
}

if (process.argv.includes("--if-stale")) {
  const built = await stat(ENTRY_OUT).catch(() => undefined);
  if (built !== undefined && built.mtimeMs >= (await newestSource())) process.exit(0);
}

let esbuild;
try {
  esbuild = await import("esbuild");
} catch {
  // An install without dev dependencies has no esbuild and no use for the stdio bin: nothing to build.
  process.stderr.write(
    "build-stdio: esbuild is not installed (dev dependency); the stdio bin was not built\n",
  );
  process.exit(0);
}

// dist/stdio is not emptied first: a server already running from it still loads its (content-named)
// chunks on first use, and must find them after a rebuild.
await esbuild.build({
  absWorkingDir: root,
  // Named stdio.js (the bin's path) whatever the entry's file is called.
  entryPoints: [{ in: "src/stdio/stdioMain.ts", out: "stdio" }],
  outdir: "dist/stdio",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  minify: true,
  mainFields: ["module", "main"],
  // The bin is run as an executable; CommonJS dependencies inside an ESM bundle call require().
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  // As in the Lambda bundle: the tools' JSON Schemas made at build time, Ajv loaded on first use.
  plugins: createRequire(import.meta.url)("./esbuild-plugins.cjs"),
  logLevel: "warning",
});
await chmod(ENTRY_OUT, 0o755);
