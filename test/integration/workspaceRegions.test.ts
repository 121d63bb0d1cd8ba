import dns from "node:dns";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/index.js";
import { serverOptionsOf } from "../../src/mcp/serverOptions.js";
import {
  ExecuteQuery,
  GetAvailableWorkspaces,
  GetServerInfo,
  ListMetrics,
  ListSilences,
} from "../../tools/index.js";
import { type ToolCall, ToolError } from "../../tools/types.js";
import { alertmanagerAvailable } from "../support/alerting.js";
import { type AmpStack, startAmpStack } from "../support/ampStack.js";
import { DATASET, prometheusAvailable } from "../support/prometheus.js";
import { callTool, makeToolCall, toolError } from "../support/toolCall.js";

/**
 * A deployment in us-east-1 whose workspaces live in eu-west-1: the proxy and the fake AMP control plane
 * accept only eu-west-1 signatures (as AMP answers 403 to a request signed for another region). The
 * workspace's region comes from PROMETHEUS_URL's host, or from an ALLOWED_WORKSPACES URL or ARN.
 */

const FUNCTION_REGION = "us-east-1";
const WORKSPACE_REGION = "eu-west-1";
const WS_PINNED = "ws-44444444-aaaa-bbbb-cccc-000000000004";
const WS_BY_ARN = "ws-55555555-aaaa-bbbb-cccc-000000000005";
const WS_BY_URL = "ws-66666666-aaaa-bbbb-cccc-000000000006";
const AMP_HOST = `aps-workspaces.${WORKSPACE_REGION}.amazonaws.com`;
const { end } = DATASET;

type Lookup = typeof dns.lookup;

/**
 * Resolves AMP's hosts (aps-workspaces.<region>.amazonaws.com) to 127.0.0.1 in this test process, so a
 * PROMETHEUS_URL with AMP's real host name (http, the proxy's port) reaches the local proxy, with that
 * host in its Host header and signature. Returns the undo.
 */
function resolveAmpHostsLocally(): () => void {
  const original = dns.lookup;
  const patched = ((hostname: string, options: unknown, callback?: unknown) => {
    const done = (typeof options === "function" ? options : callback) as (...args: unknown[]) => void;
    const opts = (typeof options === "object" && options !== null ? options : {}) as { all?: boolean };
    if (!/^aps-workspaces\.[a-z0-9-]+\.amazonaws\.com$/.test(hostname)) {
      return (original as (...args: unknown[]) => void)(hostname, options, callback);
    }
    process.nextTick(() =>
      opts.all ? done(null, [{ address: "127.0.0.1", family: 4 }]) : done(null, "127.0.0.1", 4),
    );
  }) as unknown as Lookup;
  dns.lookup = patched;
  return () => {
    dns.lookup = original;
  };
}

/** The tool settings and clients a function with this environment serves with (src/mcp/server.ts). */
function deployed(env: Record<string, string>): ToolCall {
  const config = loadConfig({ AWS_REGION: FUNCTION_REGION, ...env });
  const options = serverOptionsOf(config, undefined, true, () => undefined);
  return makeToolCall(options.settings, { upstream: options.upstream });
}

describe.skipIf(!prometheusAvailable() || !alertmanagerAvailable())(
  "a workspace in another region than the function's (us-east-1 stack, eu-west-1 workspaces)",
  () => {
    let stack: AmpStack;
    let undoLookup: () => void;
    /** PROMETHEUS_URL as AMP gives it, with the proxy's port: http://aps-workspaces.eu-west-1.amazonaws.com:<port>/workspaces/<id>/. */
    let pinnedUrl: string;

    beforeAll(async () => {
      stack = await startAmpStack(
        WORKSPACE_REGION,
        [WS_PINNED, WS_BY_ARN, WS_BY_URL].map((workspaceId) => ({ workspaceId, status: "ACTIVE" })),
      );
      undoLookup = resolveAmpHostsLocally();
      pinnedUrl = `http://${AMP_HOST}:${new URL(stack.proxy.url).port}/workspaces/${WS_PINNED}/`;
    });

    afterAll(async () => {
      undoLookup?.();
      await stack?.close();
    });

    beforeEach(() => {
      stack.proxy.reset();
      stack.amp.resetCalls();
    });

    describe("PROMETHEUS_URL pinned to a workspace in eu-west-1, ALLOWED_REGIONS=us-east-1", () => {
      const pinned = () =>
        deployed({
          PROMETHEUS_URL: pinnedUrl,
          ALLOWED_REGIONS: FUNCTION_REGION,
          AMP_ENDPOINT: stack.amp.url,
        });

      it("config allows the URL's region besides ALLOWED_REGIONS", () => {
        expect(pinned().settings.allowedRegions).toEqual([FUNCTION_REGION, WORKSPACE_REGION]);
      });

      it("a query without region is signed for the URL's region, and AMP (the proxy) accepts it", async () => {
        const result = (await callTool(
          ExecuteQuery,
          { query: "test_requests_total", time: String(end) },
          pinned(),
        )) as { result: unknown[] };
        expect(result.result).toHaveLength(2);
        expect(stack.proxy.lastRejection).toBeUndefined();
        expect(stack.proxy.requests).toMatchObject([
          { rawUrl: expect.stringMatching(`^/workspaces/${WS_PINNED}/api/v1/query\\?`), accepted: true },
        ]);
        const metrics = (await callTool(ListMetrics, {}, pinned())) as { metrics: string[] };
        expect(metrics.metrics).toContain("test_requests_total");
        expect(stack.proxy.requests.every((request) => request.accepted)).toBe(true);
        expect(stack.amp.calls).toEqual({ ListWorkspaces: 0, DescribeWorkspace: 0 });
      });

      it("the workspace's Alertmanager (ListSilences) is signed for that region too", async () => {
        await callTool(ListSilences, {}, pinned());
        expect(stack.proxy.requests).toMatchObject([
          { rawUrl: expect.stringMatching(`^/workspaces/${WS_PINNED}/alertmanager/api/v2/silences`) },
        ]);
        expect(stack.proxy.requests.every((request) => request.accepted)).toBe(true);
      });

      it("GetServerInfo reports the URL's region", async () => {
        expect(await callTool(GetServerInfo, {}, pinned())).toMatchObject({
          prometheus_url: pinnedUrl.slice(0, -1),
          aws_region: WORKSPACE_REGION,
        });
        expect(await callTool(GetServerInfo, { region: WORKSPACE_REGION }, pinned())).toMatchObject({
          aws_region: WORKSPACE_REGION,
        });
      });

      it("region: eu-west-1 is allowed, for queries and for listing the workspaces there", async () => {
        const result = (await callTool(
          ExecuteQuery,
          { query: "test_requests_total", time: String(end), region: WORKSPACE_REGION },
          pinned(),
        )) as { result: unknown[] };
        expect(result.result).toHaveLength(2);
        const listed = (await callTool(GetAvailableWorkspaces, { region: WORKSPACE_REGION }, pinned())) as {
          workspaces: { workspace_id: string; is_configured: boolean }[];
        };
        expect(listed.workspaces[0]).toMatchObject({ workspace_id: WS_PINNED, is_configured: true });
        expect(stack.amp.rejected).toBe(0);
      });

      it("GetAvailableWorkspaces without region lists the URL's region, the configured workspace first", async () => {
        const listed = (await callTool(GetAvailableWorkspaces, {}, pinned())) as {
          region: string;
          workspaces: { workspace_id: string; is_configured: boolean }[];
        };
        expect(listed.region).toBe(WORKSPACE_REGION);
        expect(listed.workspaces[0]).toMatchObject({ workspace_id: WS_PINNED, is_configured: true });
        expect(stack.amp.rejected).toBe(0);
      });

      it("another region without workspace_id is a clear tool error, and nothing is sent", async () => {
        for (const tool of [ExecuteQuery, GetServerInfo]) {
          const error = await toolError(tool, { query: "up", region: FUNCTION_REGION }, pinned());
          expect(error).toBeInstanceOf(ToolError);
          expect(error.kind).toBe("invalid_arguments");
          expect(error.message).toBe(
            `The configured Prometheus URL is workspace ${WS_PINNED} in ${WORKSPACE_REGION} (its host says so): a call without workspace_id goes there, so region "${FUNCTION_REGION}" cannot apply. Omit region (or pass ${WORKSPACE_REGION}); to query a workspace in ${FUNCTION_REGION}, pass its workspace_id with the region.`,
          );
        }
        // A region of no partition is still refused as such.
        const unknown = await toolError(ExecuteQuery, { query: "up", region: "us-fake-9" }, pinned());
        expect(unknown.message).toMatch(/^Unknown AWS region "us-fake-9"/);
        expect(stack.proxy.requests).toEqual([]);
      });

      it("the pinned workspace named as workspace_id is described in its region too", async () => {
        expect(await callTool(GetServerInfo, { workspace_id: WS_PINNED }, pinned())).toMatchObject({
          prometheus_url: stack.proxy.workspaceUrl(WS_PINNED).slice(0, -1),
          aws_region: WORKSPACE_REGION,
        });
        expect(stack.amp.calls.DescribeWorkspace).toBe(1);
        expect(stack.amp.rejected).toBe(0);
      });
    });

    describe("ALLOWED_WORKSPACES naming eu-west-1 workspaces by ARN and by URL, no PROMETHEUS_URL", () => {
      const ARN = `arn:aws:aps:${WORKSPACE_REGION}:123456789012:workspace/${WS_BY_ARN}`;
      const URL_ENTRY = `https://${AMP_HOST}/workspaces/${WS_BY_URL}/`;
      const listed = (allowedRegions = FUNCTION_REGION) =>
        deployed({
          ALLOWED_WORKSPACES: `${ARN}, ${URL_ENTRY}`,
          ALLOWED_REGIONS: allowedRegions,
          AMP_ENDPOINT: stack.amp.url,
        });

      it("workspace_id alone is described and queried in the entry's region", async () => {
        for (const workspaceId of [WS_BY_ARN, WS_BY_URL]) {
          const result = (await callTool(
            ExecuteQuery,
            { query: "test_requests_total", time: String(end), workspace_id: workspaceId },
            listed(),
          )) as { result: unknown[] };
          expect(result.result).toHaveLength(2);
          expect(await callTool(GetServerInfo, { workspace_id: workspaceId }, listed())).toMatchObject({
            prometheus_url: stack.proxy.workspaceUrl(workspaceId).slice(0, -1),
            aws_region: WORKSPACE_REGION,
          });
        }
        expect(stack.amp.rejected).toBe(0);
        expect(stack.amp.calls.DescribeWorkspace).toBe(4);
        expect(stack.proxy.requests.map((request) => request.accepted)).toEqual([true, true]);
      });

      it("their region is allowed without being in ALLOWED_REGIONS, and naming it works", async () => {
        expect(listed().settings.allowedRegions).toEqual([FUNCTION_REGION, WORKSPACE_REGION]);
        expect(
          await callTool(GetServerInfo, { workspace_id: WS_BY_ARN, region: WORKSPACE_REGION }, listed()),
        ).toMatchObject({ aws_region: WORKSPACE_REGION });
        // Another region is still refused.
        const other = await toolError(GetAvailableWorkspaces, { region: "us-west-2" }, listed());
        expect(other.message).toMatch(/^Region "us-west-2" is not enabled for this deployment/);
      });

      it("another region for such a workspace is a clear tool error, before any call", async () => {
        const error = await toolError(
          ExecuteQuery,
          { query: "up", workspace_id: WS_BY_ARN, region: FUNCTION_REGION },
          listed(),
        );
        expect(error.kind).toBe("invalid_arguments");
        expect(error.message).toBe(
          `Workspace ${WS_BY_ARN} is in ${WORKSPACE_REGION} (this deployment's configuration names it by URL or ARN), not in ${FUNCTION_REGION}. Omit region to use ${WORKSPACE_REGION}.`,
        );
        expect(stack.amp.calls).toEqual({ ListWorkspaces: 0, DescribeWorkspace: 0 });
        expect(stack.proxy.requests).toEqual([]);
      });

      it("a workspace not listed is still refused", async () => {
        const error = await toolError(GetServerInfo, { workspace_id: WS_PINNED }, listed());
        expect(error.message).toMatch(
          new RegExp(
            `^Workspace ${WS_PINNED} is not one this deployment may read: it is limited to ${WS_BY_ARN}, ${WS_BY_URL}\\.`,
          ),
        );
      });
    });
  },
);
