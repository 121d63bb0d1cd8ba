import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";

/** resvg's WebAssembly and the chart font: the files the renderer reads (render.ts). */
export interface RendererAssets {
  wasm: Uint8Array;
  font: Uint8Array;
}

/**
 * The renderer's files, from the packages that ship them. In a bundle that ships
 * (scripts/esbuild-plugins.cjs, chartAssetsBeside) this module is replaced by one that reads copies of
 * them beside the bundle's chunks, where no node_modules is.
 */
export async function rendererAssets(): Promise<RendererAssets> {
  const require = createRequire(import.meta.url);
  const [wasm, font] = await Promise.all([
    readFile(require.resolve("@resvg/resvg-wasm/index_bg.wasm")),
    readFile(require.resolve("dejavu-fonts-ttf/ttf/DejaVuSans.ttf")),
  ]);
  return { wasm, font };
}
