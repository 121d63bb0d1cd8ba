import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { findSideEffects, sideEffectsOf } from "../../scripts/import-side-effects.mjs";

// The one structure rule Biome cannot say (scripts/import-side-effects.mjs, `npm run structure`): a module
// that runs code when imported. The rest (function length, cycles, folder imports) is in biome.json.

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function repository(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "side-effects-"));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe("modules that run code on import", () => {
  it("reports a top-level call, await, new or for await, also inside a top-level `if` or block", () => {
    const root = repository({
      "src/stdio/stdio.ts": "export async function serveStdio(): Promise<void> {}\n\nawait serveStdio();\n",
      "src/start.ts":
        'import { serveStdio } from "./stdio.js";\nif (process.env.X) {\n  void serveStdio();\n}\n',
      "tools/iife.ts": "(async () => {})();\n",
      "view/loop.ts": "for await (const x of []) {\n  new Set([x]);\n}\n",
    });
    expect(findSideEffects(root).map((found) => `${found.file}:${found.line} ${found.text}`)).toEqual([
      "src/start.ts:3 void serveStdio();",
      "src/stdio/stdio.ts:3 await serveStdio();",
      "tools/iife.ts:1 (async () => {})();",
      "view/loop.ts:1 for await (…)",
      "view/loop.ts:2 new Set([x]);",
    ]);
  });

  it("passes declarations, a module filling its own tables, and an entry file wherever it lies", () => {
    const root = repository({
      "src/stdio/stdio.ts":
        "export async function serveStdio(): Promise<void> {\n  await Promise.resolve();\n}\n",
      "src/stdio/stdioMain.ts": 'import { serveStdio } from "./stdio.js";\n\nawait serveStdio();\n',
      "src/table.ts": [
        "const CLASS = new Uint8Array(128);",
        "CLASS.fill(1);",
        "export const NAMES = new Set<string>();",
        'NAMES.add("x");',
        "export const config = JSON.parse('{}');",
        "export const later = () => console.log(CLASS);",
        "",
      ].join("\n"),
      "src/types.d.ts": "declare function f(): void;\n",
    });
    expect(findSideEffects(root)).toEqual([]);
    expect(sideEffectsOf("src/stdio/stdioMain.ts", "await serveStdio();\n")).toHaveLength(1);
  });
});
