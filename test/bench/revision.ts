import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { bundleForNode } from "../support/bundle.js";

/**
 * The app (`createHandler`, `loadConfig`) of an earlier git revision, bundled beside the working tree's
 * node_modules, so one benchmark run can compare today's answers with that revision's (`file`: the
 * bundle, for a child process to import). Undefined, with the reason, when the revision is not in this
 * clone (a shallow clone) or does not build.
 */
export async function appOfRevision(
  root: string,
  revision: string,
): Promise<{ app?: RevisionApp; file?: string; reason?: string }> {
  const work = join(root, "node_modules", ".cache", `bench-revision-${revision}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    extractRevision(root, revision, work);
    writeFileSync(
      join(work, "entry.ts"),
      // Issue 39 moved src/app.ts into src/lambda/ and made src/config.ts the folder src/config/: a
      // revision has one or the other.
      `export { createHandler } from "./src/${existsSync(join(work, "src/lambda/app.ts")) ? "lambda/app" : "app"}.js";\nexport { loadConfig } from "./src/${existsSync(join(work, "src/config/index.ts")) ? "config/index" : "config"}.js";\n`,
    );
    const outfile = await bundleForNode(join(work, "entry.ts"), join(work, "app.mjs"), {
      nodePaths: [join(root, "node_modules")],
      logLevel: "error",
    });
    return { app: (await import(pathToFileURL(outfile).href)) as RevisionApp, file: outfile };
  } catch (error) {
    return {
      reason: `revision ${revision} unavailable here: ${String((error as Error).message).split("\n")[0]}`,
    };
  }
}

/**
 * What the app at `revision` is built from, written into `work`: its sources, and the scripts and view
 * page they import, where the revision has them. Throws when the revision is not in this clone.
 */
export function extractRevision(root: string, revision: string, work: string): void {
  const paths = ["src", "tools", "scripts", "view", "package.json"].filter((path) => {
    try {
      execFileSync("git", ["cat-file", "-e", `${revision}:${path}`], { cwd: root, stdio: "ignore" });
      return true;
    } catch {
      return false;
    }
  });
  const archive = execFileSync("git", ["archive", "--format=tar", revision, ...paths], {
    cwd: root,
    maxBuffer: 64 * 2 ** 20,
    stdio: ["ignore", "pipe", "pipe"],
  });
  execFileSync("tar", ["-x", "-C", work], { input: archive });
}

export interface RevisionApp {
  createHandler(config: unknown): (event: unknown, context: unknown) => Promise<unknown>;
  loadConfig(env: Record<string, string>): unknown;
}
