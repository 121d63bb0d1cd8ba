import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import * as esbuild from "esbuild";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INLINE_SIZE_KEY, MAX_DECLARED_CHARS } from "../../src/results/inlineSize.js";
import { compact } from "../../view/format.js";
import type { Shown } from "../support/appsHost.js";
import { CHROMIUM_FLAGS, CHROMIUM_PATH, chromiumAvailable } from "../support/browser.js";
import { type RunningOffline, startOffline } from "../support/offline.js";
import {
  prometheusAvailable,
  type RunningPrometheus,
  startPrometheus,
  WHOLE_DATASET_RANGE,
} from "../support/prometheus.js";

// The MCP Apps view of range results (src/views/, view/) as clients meet it, against `serverless
// offline` (what `npm start` runs) and a real Prometheus: the SDK clients of both protocol eras list
// and read the `ui://` resource; a PYTHON_COMPAT deployment offers none of it; and a real browser
// (Debian's Chromium, driven by playwright-core) runs the view inside a host page of our own built on
// the ext-apps SDK's host bridge, which hands it real tool results.

const VIEW_URI = "ui://prometheus-mcp-lambda/range-chart";
const VIEW_MIME = "text/html;profile=mcp-app";
const UI_EXTENSION = "io.modelcontextprotocol/ui";
const REPOSITORY = fileURLToPath(new URL("../..", import.meta.url));
/** Where CI keeps what the browser saw (docs/tools.md's screenshot is one of them). */
const ARTIFACTS = `${REPOSITORY}.tmp/artifacts`;

async function legacyClient(url: string): Promise<Client> {
  const client = new Client({ name: "view-e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return client;
}

describe.skipIf(!prometheusAvailable())(
  "MCP Apps view: resources in both eras, none under PYTHON_COMPAT",
  () => {
    let prometheus: RunningPrometheus;
    let offline: RunningOffline;
    let compat: RunningOffline;

    beforeAll(async () => {
      prometheus = await startPrometheus();
      const env = { PROMETHEUS_URL: prometheus.url, LOG_LEVEL: "WARN" };
      [offline, compat] = await Promise.all([
        startOffline(env),
        startOffline({ ...env, PYTHON_COMPAT: "true" }),
      ]);
    }, 180_000);

    afterAll(async () => {
      await Promise.all([offline?.close(), compat?.close()]);
      await prometheus?.close();
    });

    it("2025-11-25 (SDK v1 client): capability and extension declared, tools point at the view, the page is read", async () => {
      const client = await legacyClient(offline.url);
      try {
        const capabilities = client.getServerCapabilities() as Record<string, unknown>;
        expect(capabilities.resources).toStrictEqual({ subscribe: false, listChanged: false });
        expect(capabilities.extensions).toStrictEqual({ [UI_EXTENSION]: { mimeTypes: [VIEW_MIME] } });

        const { tools } = await client.listTools();
        const pointing = tools.filter((tool) => tool._meta?.ui !== undefined).map((tool) => tool.name);
        expect(pointing).toStrictEqual(["ExecuteRangeQuery", "PlotRangeQuery"]);
        for (const tool of tools.filter((listed) => listed._meta?.ui !== undefined)) {
          expect(tool._meta).toStrictEqual({
            ui: { resourceUri: VIEW_URI },
            "ui/resourceUri": VIEW_URI,
            [INLINE_SIZE_KEY]: MAX_DECLARED_CHARS,
          });
        }

        const { resources } = await client.listResources();
        expect(resources.map((resource) => [resource.uri, resource.mimeType])).toStrictEqual([
          [VIEW_URI, VIEW_MIME],
        ]);
        expect((await client.listResourceTemplates()).resourceTemplates).toStrictEqual([]);

        const { contents } = await client.readResource({ uri: VIEW_URI });
        expect(contents).toHaveLength(1);
        const [page] = contents as { uri: string; mimeType: string; text: string; _meta: unknown }[];
        expect(page?.uri).toBe(VIEW_URI);
        expect(page?.mimeType).toBe(VIEW_MIME);
        expect(page?._meta).toStrictEqual({
          ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true },
        });
        expect(page?.text.startsWith("<!doctype html>")).toBe(true);
        // One page, its script and styles inline, allowed by hash and nothing else.
        expect(page?.text).toMatch(
          /content="default-src 'none'; script-src 'sha256-[^']+'; style-src 'sha256-[^']+'; img-src data:; connect-src 'none';/,
        );
        expect(page?.text).not.toMatch(/<script[^>]+src=|<link /);
        expect(Buffer.byteLength(page?.text ?? "", "utf8")).toBeLessThanOrEqual(200 * 1024);

        await expect(client.readResource({ uri: "ui://prometheus-mcp-lambda/other" })).rejects.toMatchObject({
          code: -32602,
          data: { uri: "ui://prometheus-mcp-lambda/other" },
        });
      } finally {
        await client.close();
      }
    });

    it("PlotRangeQuery draws under serverless offline: its worker, built beside the bundle, answers an image", async () => {
      const client = await legacyClient(offline.url);
      try {
        const result = (await client.callTool({
          name: "PlotRangeQuery",
          arguments: { ...WHOLE_DATASET_RANGE, title: "offline" },
        })) as { isError?: boolean; content: Array<{ type: string }> };
        expect(result.isError, JSON.stringify(result).slice(0, 500)).toBeFalsy();
        expect(result.content.map((item) => item.type)).toStrictEqual(["image", "text"]);
      } finally {
        await client.close();
      }
    }, 60_000);

    it("2026-07-28 (v2 client, pinned): discover declares it, resources/read answers statelessly with cache hints", async () => {
      const client = new ModernClient(
        { name: "view-e2e-modern", version: "1.0.0" },
        { versionNegotiation: { mode: { pin: "2026-07-28" } } },
      );
      await client.connect(new ModernTransport(new URL(`${offline.url}/mcp`)));
      try {
        expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
        const capabilities = client.getServerCapabilities() as Record<string, unknown>;
        expect(capabilities.extensions).toStrictEqual({ [UI_EXTENSION]: { mimeTypes: [VIEW_MIME] } });
        expect(capabilities.resources).toBeDefined();
        const { resources } = await client.listResources();
        expect(resources.map((resource) => resource.uri)).toStrictEqual([VIEW_URI]);
        const read = await client.readResource({ uri: VIEW_URI });
        const [page] = read.contents as { mimeType: string; text: string }[];
        expect(page?.mimeType).toBe(VIEW_MIME);
        expect(page?.text).toContain("Content-Security-Policy");
      } finally {
        await client.close();
      }
      // On the wire: the modern result of resources/read, with its cache hints and server info.
      const response = await fetch(`${offline.url}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "resources/read",
          "mcp-name": VIEW_URI,
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "resources/read",
          params: {
            uri: VIEW_URI,
            _meta: {
              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientCapabilities": {},
            },
          },
        }),
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { result: Record<string, unknown> };
      expect(body.result).toMatchObject({ resultType: "complete", ttlMs: 3_600_000, cacheScope: "public" });
      expect(response.headers.get("mcp-session-id")).toBeNull();
    });

    it("PYTHON_COMPAT=true: no PlotRangeQuery, no tool points at a view, no resources (method not found)", async () => {
      const client = await legacyClient(compat.url);
      try {
        const capabilities = client.getServerCapabilities() as Record<string, unknown>;
        expect(capabilities.resources).toBeUndefined();
        expect(capabilities.extensions).toBeUndefined();
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).not.toContain("PlotRangeQuery");
        expect(tools.filter((tool) => tool._meta?.ui !== undefined)).toStrictEqual([]);
        await expect(client.listResources()).rejects.toMatchObject({ code: -32601 });
      } finally {
        await client.close();
      }
    });

    describe.skipIf(!chromiumAvailable())(
      "in a browser (Chromium, a host page on the ext-apps AppBridge)",
      () => {
        let browser: Browser;
        let hostScript: string;

        beforeAll(async () => {
          const built = await esbuild.build({
            entryPoints: [fileURLToPath(new URL("../support/appsHost.ts", import.meta.url))],
            bundle: true,
            format: "iife",
            platform: "browser",
            write: false,
            logLevel: "silent",
          });
          hostScript = built.outputFiles[0]?.text ?? "";
          browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS });
          await mkdir(ARTIFACTS, { recursive: true });
        }, 60_000);

        afterAll(async () => {
          await browser?.close();
        });

        /** A fresh host page; every HTTP request its client makes, and every browser-level request and console error. */
        async function hostPage(): Promise<{
          page: Page;
          posted: string[];
          requests: string[];
          errors: string[];
        }> {
          const page = await browser.newPage({ viewport: { width: 960, height: 760 } });
          const posted: string[] = [];
          const requests: string[] = [];
          const errors: string[] = [];
          page.on("request", (request) => requests.push(request.url()));
          page.on("console", (message) => {
            if (message.type() === "error" || message.type() === "warning") errors.push(message.text());
          });
          page.on("pageerror", (error) => errors.push(error.message));
          await page.exposeFunction(
            "hostFetch",
            async (url: string, init: { method: string; headers: Record<string, string>; body?: string }) => {
              if (init.body !== undefined) posted.push(init.body);
              const response = await fetch(url, init);
              return {
                status: response.status,
                headers: Object.fromEntries(response.headers),
                body: await response.text(),
              };
            },
          );
          await page.setContent(`<!doctype html><html><body><script>${hostScript}</script></body></html>`);
          return { page, posted, requests, errors };
        }

        it("PlotRangeQuery in a host that does not let views call tools: the server's picture, and why", async () => {
          const { page, posted, requests, errors } = await hostPage();
          try {
            await page.evaluate(
              ([url, name, args]) => window.showTool(url, name, args, { serverTools: false }),
              [`${offline.url}/mcp`, "PlotRangeQuery", WHOLE_DATASET_RANGE] as const,
            );
            const view = page.frameLocator("#view");
            await expect
              .poll(() => view.locator("#status").textContent())
              .toMatch(/cannot ask the server for the points/);
            const picture = view.locator("#chart img");
            expect(await picture.getAttribute("src")).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
            // Drawn by the browser at the server's size: the PNG decoded.
            await expect
              .poll(() => picture.evaluate((image: HTMLImageElement) => image.naturalWidth))
              .toBe(1000);
            expect(await view.locator(".uplot").count()).toBe(0);
            const calls = posted.map(
              (body) => JSON.parse(body) as { method?: string; params?: { name?: string } },
            );
            expect(
              calls.filter((call) => call.method === "tools/call").map((call) => call.params?.name),
            ).toStrictEqual(["PlotRangeQuery"]);
            expect(requests).toStrictEqual([]);
            expect(errors).toStrictEqual([]);
          } finally {
            await page.close();
          }
        });

        for (const tool of ["ExecuteRangeQuery", "PlotRangeQuery"] as const) {
          it(`${tool}: the view draws every series of a real result, shows values on hover, hides a series on click; no network request`, async () => {
            const { page, posted, requests, errors } = await hostPage();
            try {
              const shown: Shown = await page.evaluate(
                ([url, name, args]) => window.showTool(url, name, args),
                [`${offline.url}/mcp`, tool, WHOLE_DATASET_RANGE] as const,
              );
              expect(shown.resourceUri).toBe(VIEW_URI);
              expect(shown.mimeType).toBe(VIEW_MIME);
              expect(shown.appName).toBe("prometheus-mcp-lambda range chart");
              expect(shown.content).toStrictEqual(tool === "PlotRangeQuery" ? ["image", "text"] : ["text"]);

              const view = page.frameLocator("#view");
              const legend = view.locator(".u-legend .u-series");
              // The x series is the legend's first entry; the dataset has four series.
              await expect.poll(() => legend.count(), { timeout: 15_000 }).toBe(5);
              if (tool === "ExecuteRangeQuery") expect(shown.series).toBe(4);
              else {
                // PlotRangeQuery's result holds a picture: the view asked the host for the points.
                const calls = posted.map(
                  (body) => JSON.parse(body) as { method?: string; params?: { name?: string } },
                );
                const asked = calls
                  .filter((call) => call.method === "tools/call")
                  .map((call) => call.params?.name);
                expect(asked).toStrictEqual(["PlotRangeQuery", "ExecuteRangeQuery"]);
              }
              await expect.poll(() => view.locator("#title").textContent()).toBe(WHOLE_DATASET_RANGE.query);

              const plot = view.locator(".u-over");
              const box = await plot.boundingBox();
              if (box === null) throw new Error("the plot area is not shown");
              await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
              // The legend shows the hovered time (in UTC: the dataset's hour is 22:13–23:13 on 2023-11-14)
              // and every series' value there.
              await expect
                .poll(() => legend.nth(0).locator(".u-value").textContent())
                .toMatch(/^2023-11-14 2[23]:\d\d:\d\dZ$/);
              // Each series' value at that time, as Prometheus has it there.
              const hovered = (await legend.nth(0).locator(".u-value").textContent()) ?? "";
              const time = Date.parse(hovered.replace(" ", "T")) / 1000;
              const { result: samples } = await prometheus.api<{ result: { value: [number, string] }[] }>(
                "query",
                {
                  query: WHOLE_DATASET_RANGE.query,
                  time,
                },
              );
              const expected = samples.map((sample) => compact(Number(sample.value[1]))).sort();
              const values = await Promise.all(
                [1, 2, 3, 4].map((at) => legend.nth(at).locator(".u-value").textContent()),
              );
              expect(values.sort()).toStrictEqual(expected);
              await page.locator("#view").screenshot({ path: `${ARTIFACTS}/range-view-${tool}.png` });

              await legend.nth(2).click();
              await expect.poll(() => legend.nth(2).getAttribute("class")).toMatch(/u-off/);
              expect(await legend.nth(1).getAttribute("class")).not.toMatch(/u-off/);

              expect(requests).toStrictEqual([]);
              expect(errors).toStrictEqual([]);
            } finally {
              await page.close();
            }
          });
        }
      },
    );
  },
);
