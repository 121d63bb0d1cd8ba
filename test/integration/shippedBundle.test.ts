import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { BuildOptions } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleAsShipped } from "../support/bundle.js";
import { runToEnd } from "../support/childProcess.js";
import { makeHandler, postMcp } from "../support/handler.js";

// The shipped bundles are built with scripts/esbuild-plugins.cjs (serverless.yml's esbuild `plugins`,
// scripts/build-stdio.mjs). Their changes must not show: a bundle answers as the sources do.

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const AMP_URL =
  "https://aps-workspaces.us-east-1.amazonaws.com/workspaces/ws-12345678-abcd-1234-abcd-123456789012";

/** As serverless.yml's esbuild settings build the function (ES modules, chunks, the shipped plugins). */
async function buildShipped(
  outdir: string,
  input: Pick<BuildOptions, "entryPoints" | "stdin">,
): Promise<void> {
  await bundleAsShipped(ROOT, outdir, input);
}

/** Runs an ES module script in a child `node` whose working directory (outside the repository) has no node_modules. */
async function runScript(cwd: string, script: string, env: Record<string, string> = {}): Promise<string> {
  const run = await runToEnd(process.execPath, ["--input-type=module", "-e", script], {
    cwd,
    env: { PATH: process.env.PATH, AWS_EC2_METADATA_DISABLED: "true", ...env },
    timeoutMs: 20_000,
  });
  expect(run.code, run.stderr).toBe(0);
  return run.stdout;
}

const TOOLS_LIST = { jsonrpc: "2.0", id: 1, method: "tools/list" };

describe("the function's bundle, built with the shipped plugins", () => {
  let dir: string;
  let handlerFile: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "pml-shipped-"));
    await buildShipped(join(dir, "function"), { entryPoints: { handler: "src/lambda/handler.ts" } });
    handlerFile = join(dir, "function", "handler.mjs");
  }, 60_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** The bundle's tools/list body under `env`, from a fresh process (the configuration is read at import). */
  async function bundledToolsList(env: Record<string, string>): Promise<unknown> {
    const stdout = await runScript(
      dir,
      `const { handler } = await import(${JSON.stringify(pathToFileURL(handlerFile).href)});
       const event = { version: "2.0", rawPath: "/mcp", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
         requestContext: { http: { method: "POST", path: "/mcp", sourceIp: "127.0.0.1" }, requestId: "r", timeEpoch: Date.now() },
         body: ${JSON.stringify(JSON.stringify(TOOLS_LIST))}, isBase64Encoded: false };
       const reply = await handler(event, { awsRequestId: "r", getRemainingTimeInMillis: () => 29000 });
       process.stdout.write(reply.body);`,
      { LOG_LEVEL: "SILENT", METRICS: "off", AWS_REGION: "us-east-1", ...env },
    );
    return JSON.parse(stdout);
  }

  it.each([
    ["an AMP workspace URL, SigV4", { PROMETHEUS_URL: AMP_URL }],
    ["no URL: workspaces by id", {}],
    ["a plain Prometheus", { PROMETHEUS_URL: "http://127.0.0.1:9090", PROMETHEUS_AUTH: "none" }],
    ["PYTHON_COMPAT (string parameters only)", { PROMETHEUS_URL: AMP_URL, PYTHON_COMPAT: "true" }],
    [
      "a plain Prometheus, two groups of tools",
      { PROMETHEUS_URL: "http://127.0.0.1:9090", PROMETHEUS_AUTH: "none", TOOLS: "core,alerting" },
    ],
  ])("lists the tools exactly as the sources do: %s", async (_name, env) => {
    const fromSources = JSON.parse(
      (await postMcp(makeHandler({ AWS_REGION: "us-east-1", ...env }), TOOLS_LIST)).body,
    );
    expect((fromSources as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThanOrEqual(5);
    expect(await bundledToolsList(env)).toEqual(fromSources);
  });

  it("carries the tools' schemas made at build time, and none of Ajv", async () => {
    const code = await readFile(handlerFile, "utf8");
    // The table src/mcp/toolSchemaCache.ts was replaced with (JSON), so the lists above came from it.
    expect(code.includes('{"ExecuteQuery":{"amp":{"strings":{')).toBe(true);
    // Ajv's own option names are only in the provider file written beside the bundle.
    expect(code.includes("strictTypes")).toBe(false);
    const provider = await readFile(join(dir, "function", "sdk-ajv-provider.cjs"), "utf8");
    expect(provider.includes("strictTypes")).toBe(true);
  });
});

describe("Ajv in a shipped bundle", () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "pml-ajv-"));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("is read from the file beside the bundle on the first validator, not before, and validates as the SDK's provider does", async () => {
    // An entry as src/mcp/server.ts uses the validator: the SDK's server module and its Ajv provider.
    await buildShipped(join(dir, "entry"), {
      stdin: {
        contents: `import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
          import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
          export const server = new McpServer({ name: "probe", version: "1" });
          export const validator = new AjvJsonSchemaValidator();`,
        resolveDir: ROOT,
        sourcefile: "entry.ts",
        loader: "ts",
      },
    });
    const entry = join(dir, "entry", "stdin.mjs");
    expect((await stat(join(dir, "entry", "sdk-ajv-provider.cjs"))).isFile()).toBe(true);
    const stdout = await runScript(
      dir,
      `import { createRequire } from "node:module";
       const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((file) => file.endsWith("sdk-ajv-provider.cjs"));
       const { validator } = await import(${JSON.stringify(pathToFileURL(entry).href)});
       const before = loaded();
       const validate = validator.getValidator({ type: "object", properties: { n: { type: "integer", minimum: 1 } }, required: ["n"] });
       process.stdout.write(JSON.stringify({ before, after: loaded(), good: validate({ n: 2 }), bad: validate({ n: 0 }) }));`,
    );
    expect(JSON.parse(stdout)).toEqual({
      before: false,
      after: true,
      good: { valid: true, data: { n: 2 } },
      bad: { valid: false, errorMessage: "data/n must be >= 1" },
    });
  });

  it("fails a build in which it found no import of the SDK's provider to replace, naming the fix", async () => {
    await expect(
      buildShipped(join(dir, "nothing"), {
        stdin: {
          contents: "export const answer = 42;",
          resolveDir: ROOT,
          sourcefile: "nothing.ts",
          loader: "ts",
        },
      }),
    ).rejects.toThrow(
      /replaced no import of the MCP SDK's Ajv provider: the SDK has moved it \(update scripts\/esbuild-plugins\.cjs\)/,
    );
  });

  it("a bundle holding the chart renderer gets its files (resvg's WebAssembly, the font) beside the chunk that reads them, and draws with no node_modules", async () => {
    const out = join(dir, "charts");
    await buildShipped(out, {
      stdin: {
        // The SDK's server too, as every bundle that ships holds it (the Ajv plugin insists).
        contents: `import "@modelcontextprotocol/sdk/server/index.js";
          export { chartModel } from "./src/charts/chartModel.ts";
          export { renderPng } from "./src/charts/render.ts";`,
        resolveDir: ROOT,
        sourcefile: "charts.ts",
        loader: "ts",
      },
    });
    const stdout = await runScript(
      dir,
      `const { chartModel, renderPng } = await import(${JSON.stringify(pathToFileURL(join(out, "stdin.mjs")).href)});
       const values = Array.from({ length: 60 }, (_, at) => [1700000000 + at * 60, String(Math.sin(at / 5))]);
       const png = await renderPng(chartModel([{ metric: { __name__: "up" }, values }], { title: "up", order: "unusual" }));
       process.stdout.write(JSON.stringify({ bytes: png.length, signature: Buffer.from(png.subarray(1, 4)).toString() }));`,
    );
    const drawn = JSON.parse(stdout) as { bytes: number; signature: string };
    expect(drawn.signature).toBe("PNG");
    expect(drawn.bytes).toBeGreaterThan(5_000);
    // Beside the chunk that reads them, exactly once.
    const beside = await readdir(out, { recursive: true });
    expect(beside.filter((name) => name.endsWith("resvg.wasm"))).toHaveLength(1);
    expect(beside.filter((name) => name.endsWith("DejaVuSans.ttf"))).toHaveLength(1);
  }, 60_000);

  it("a bundle that draws charts gets the chart worker beside the chunk that starts it, its renderer's files beside it, and draws in it with no node_modules", async () => {
    const out = join(dir, "worker");
    await buildShipped(out, {
      stdin: {
        contents: `import "@modelcontextprotocol/sdk/server/index.js";
          export { chartModel } from "./src/charts/chartModel.ts";
          export { drawChart } from "./src/charts/drawing.ts";
          export { startRequest } from "./src/context.ts";`,
        resolveDir: ROOT,
        sourcefile: "charts.ts",
        loader: "ts",
      },
    });
    const beside = await readdir(out, { recursive: true });
    expect(beside.filter((name) => name.endsWith("chart-worker.mjs"))).toStrictEqual(["chart-worker.mjs"]);
    expect(beside.filter((name) => name.endsWith("resvg.wasm"))).toStrictEqual(["resvg.wasm"]);
    expect(beside.filter((name) => name.endsWith("DejaVuSans.ttf"))).toStrictEqual(["DejaVuSans.ttf"]);
    // The renderer is in the worker's file alone.
    for (const name of beside.filter((file) => file.endsWith(".mjs") && file !== "chart-worker.mjs")) {
      expect((await readFile(join(out, name), "utf8")).includes("zrender"), name).toBe(false);
    }
    const stdout = await runScript(
      dir,
      `const { chartModel, drawChart, startRequest } = await import(${JSON.stringify(pathToFileURL(join(out, "stdin.mjs")).href)});
       const values = Array.from({ length: 60 }, (_, at) => [1700000000 + at * 60, String(Math.sin(at / 5))]);
       const request = startRequest({ timeoutMs: 15000 });
       const png = await drawChart(chartModel([{ metric: { __name__: "up" }, values }], { title: "up", order: "unusual" }), request);
       request.end();
       process.stdout.write(JSON.stringify({ bytes: png.length, signature: Buffer.from(png.subarray(1, 4)).toString() }));`,
    );
    const drawn = JSON.parse(stdout) as { bytes: number; signature: string };
    expect(drawn.signature).toBe("PNG");
    expect(drawn.bytes).toBeGreaterThan(5_000);
  }, 60_000);
});
