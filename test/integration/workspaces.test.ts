import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { MAX_CACHED_CLIENTS } from "../../src/prometheus/controlPlane.js";
import { PARTITIONS } from "../../src/prometheus/regions.js";
import { MAX_CACHED_ENDPOINTS } from "../../src/prometheus/workspaces.js";
import { ExecuteQuery, GetAvailableWorkspaces, GetServerInfo, ListMetrics } from "../../tools/index.js";
import { ToolError } from "../../tools/types.js";
import { type FakeAmp, type FakeWorkspace, startFakeAmp } from "../support/fakeAmp.js";
import { advance, useFakeClock, waitUntil, watch } from "../support/fakeClock.js";
import { refusedUrl } from "../support/net.js";
import { callTool, makeToolCall, toolError } from "../support/toolCall.js";

const REGION = "us-west-2";
const id = (n: number) => `ws-0000000${n}-aaaa-bbbb-cccc-dddddddddddd`;
const ampUrl = (n: number) => `https://aps-workspaces.${REGION}.amazonaws.com/workspaces/${id(n)}/`;

const FIVE: FakeWorkspace[] = [
  { workspaceId: id(1), alias: "prod", status: "ACTIVE" },
  { workspaceId: id(2), status: "CREATING" },
  { workspaceId: id(3), alias: "staging", status: "ACTIVE" },
  { workspaceId: id(4), alias: "old", status: "DELETING" },
  { workspaceId: id(5), status: "ACTIVE" },
];

describe("GetAvailableWorkspaces and workspace resolution against a fake AMP control plane", () => {
  let amp: FakeAmp;

  beforeAll(async () => {
    amp = await startFakeAmp({ region: REGION, workspaces: FIVE, pageSize: 2 });
  });
  afterAll(async () => {
    await amp?.close();
  });
  beforeEach(() => {
    amp.setWorkspaces(FIVE);
    amp.resetCalls();
  });

  const call = (overrides = {}) =>
    makeToolCall({ ampEndpoint: amp.url, defaultRegion: REGION, ...overrides });

  it("lists every page, URLs only for ACTIVE workspaces, keys in the Python order", async () => {
    const result = (await callTool(GetAvailableWorkspaces, {}, call())) as Record<string, unknown>;
    expect(result).toEqual({
      workspaces: [
        {
          workspace_id: id(1),
          alias: "prod",
          status: "ACTIVE",
          prometheus_url: ampUrl(1),
          region: REGION,
          is_configured: false,
          allowed: true,
        },
        {
          workspace_id: id(2),
          alias: "No alias",
          status: "CREATING",
          region: REGION,
          is_configured: false,
          allowed: true,
        },
        {
          workspace_id: id(3),
          alias: "staging",
          status: "ACTIVE",
          prometheus_url: ampUrl(3),
          region: REGION,
          is_configured: false,
          allowed: true,
        },
        {
          workspace_id: id(4),
          alias: "old",
          status: "DELETING",
          region: REGION,
          is_configured: false,
          allowed: true,
        },
        {
          workspace_id: id(5),
          alias: "No alias",
          status: "ACTIVE",
          prometheus_url: ampUrl(5),
          region: REGION,
          is_configured: false,
          allowed: true,
        },
      ],
      count: 5,
      region: REGION,
      requires_user_selection: true,
      configured_workspace_id: null,
      message: "Please choose a workspace ID to use with your queries.",
    });
    expect(Object.keys(result)).toEqual([
      "workspaces",
      "count",
      "region",
      "requires_user_selection",
      "configured_workspace_id",
      "message",
    ]);
    const first = (result.workspaces as object[])[0] as object;
    expect(Object.keys(first)).toEqual([
      "workspace_id",
      "alias",
      "status",
      "prometheus_url",
      "region",
      "is_configured",
      "allowed",
    ]);
    expect(amp.calls.ListWorkspaces).toBe(3);
    expect(amp.calls.DescribeWorkspace).toBe(3);
    expect(amp.rejected).toBe(0);
  });

  it("lists the workspace named by PROMETHEUS_URL first, with the note; only it is allowed", async () => {
    const result = (await callTool(GetAvailableWorkspaces, {}, call({ prometheusUrl: ampUrl(3) }))) as {
      workspaces: Record<string, unknown>[];
    } & Record<string, unknown>;
    expect(result.workspaces.map((w) => w.workspace_id)).toEqual([id(3), id(1), id(2), id(4), id(5)]);
    expect(result.workspaces[0]).toEqual({
      workspace_id: id(3),
      alias: "staging",
      status: "ACTIVE",
      prometheus_url: ampUrl(3),
      region: REGION,
      is_configured: true,
      note: "(Detected from URL - will be used automatically)",
      allowed: true,
    });
    expect(Object.keys(result.workspaces[0] as object)).toEqual([
      "workspace_id",
      "alias",
      "status",
      "prometheus_url",
      "region",
      "is_configured",
      "note",
      "allowed",
    ]);
    expect(
      result.workspaces
        .slice(1)
        .every((w) => w.is_configured === false && !("note" in w) && w.allowed === false),
    ).toBe(true);
    expect(result).toMatchObject({
      count: 5,
      requires_user_selection: false,
      configured_workspace_id: id(3),
      message: `This deployment may read only workspace ${id(3)}. It was detected in the URL and is used automatically. Other workspaces are refused.`,
    });
    expect(result.message).not.toMatch(/override/);
  });

  it("with ALLOWED_WORKSPACES too, marks those allowed and says which may be used", async () => {
    const result = (await callTool(
      GetAvailableWorkspaces,
      {},
      call({ prometheusUrl: ampUrl(3), allowedWorkspaces: [id(5), "ws-elsewhere"] }),
    )) as { workspaces: Record<string, unknown>[] } & Record<string, unknown>;
    expect(result.workspaces.map((w) => [w.workspace_id, w.allowed])).toEqual([
      [id(3), true],
      [id(1), false],
      [id(2), false],
      [id(4), false],
      [id(5), true],
    ]);
    expect(result.message).toBe(
      `This deployment may read only these workspaces: ${id(3)}, ${id(5)}, ws-elsewhere. ${id(3)} was detected in the URL and is used automatically; pass another of them as workspace_id to query it. Other workspaces are refused.`,
    );
  });

  it("with an allow-list alone, asks to choose among the allowed ones", async () => {
    const result = (await callTool(
      GetAvailableWorkspaces,
      {},
      call({ allowedWorkspaces: [id(1), id(5)] }),
    )) as { workspaces: Record<string, unknown>[] } & Record<string, unknown>;
    expect(result.workspaces.filter((w) => w.allowed).map((w) => w.workspace_id)).toEqual([id(1), id(5)]);
    expect(result).toMatchObject({
      requires_user_selection: true,
      configured_workspace_id: null,
      message: `This deployment may read only these workspaces: ${id(1)}, ${id(5)}. Pass one of them as workspace_id. Other workspaces are refused.`,
    });
  });

  it("says so when only one workspace exists, and when none exist", async () => {
    amp.setWorkspaces([FIVE[1] as FakeWorkspace]);
    expect(await callTool(GetAvailableWorkspaces, { region: null, profile: null }, call())).toMatchObject({
      count: 1,
      requires_user_selection: false,
      message:
        "Only one workspace is available. You can use it by specifying its workspace_id in your queries.",
    });
    amp.setWorkspaces([]);
    expect(await callTool(GetAvailableWorkspaces, {}, call())).toEqual({
      workspaces: [],
      count: 0,
      region: REGION,
      requires_user_selection: false,
      configured_workspace_id: null,
      message: `No workspaces found in ${REGION}.`,
    });
  });

  it("caches endpoints it learned, so a later query needs no DescribeWorkspace", async () => {
    const first = call();
    await callTool(GetAvailableWorkspaces, {}, first);
    amp.resetCalls();
    const later = makeToolCall(first.settings, { upstream: first.upstream });
    const info = await callTool(GetServerInfo, { workspace_id: id(5) }, later);
    expect(info).toMatchObject({ prometheus_url: ampUrl(5).slice(0, -1) });
    expect(amp.calls.DescribeWorkspace).toBe(0);
  });

  it("a cache belongs to one handler's clients: another handler describes the workspace itself", async () => {
    await callTool(GetAvailableWorkspaces, {}, call());
    amp.resetCalls();
    await callTool(GetServerInfo, { workspace_id: id(5) }, call());
    expect(amp.calls.DescribeWorkspace).toBe(1);
  });

  it("reports a workspace that does not exist, naming it and the region", async () => {
    const error = await toolError(GetServerInfo, { workspace_id: "ws-nope" }, call());
    expect(error).toBeInstanceOf(ToolError);
    expect(error.message).toBe(
      `Workspace ws-nope not found in ${REGION}. Use GetAvailableWorkspaces to list the workspaces in that region, or pass the right region.`,
    );
  });

  it("does not cache a failed lookup", async () => {
    const first = call();
    await expect(callTool(GetServerInfo, { workspace_id: "ws-later" }, first)).rejects.toThrow(/not found/);
    amp.setWorkspaces([{ workspaceId: "ws-later", status: "ACTIVE" }]);
    const later = makeToolCall(first.settings, { upstream: first.upstream });
    expect(await callTool(GetServerInfo, { workspace_id: "ws-later" }, later)).toMatchObject({
      prometheus_url: `https://aps-workspaces.${REGION}.amazonaws.com/workspaces/ws-later`,
    });
  });

  it("a PROMETHEUS_URL naming a workspace refuses any other workspace_id, before any request", async () => {
    for (const tool of [GetServerInfo, ListMetrics, ExecuteQuery]) {
      const error = await toolError(
        tool,
        { workspace_id: id(1), query: "up" },
        call({ prometheusUrl: ampUrl(3) }),
      );
      expect(error).toBeInstanceOf(ToolError);
      expect(error.message).toBe(
        `Workspace ${id(1)} is not one this deployment may read: it is limited to ${id(3)}. Omit workspace_id to use the configured ${id(3)}. To read others, the deployer must add them to ALLOWED_WORKSPACES (the allowedWorkspaces parameter).`,
      );
    }
    expect(amp.calls).toEqual({ ListWorkspaces: 0, DescribeWorkspace: 0 });
    expect(amp.rejected).toBe(0);
    // The configured workspace itself may still be named.
    const info = await callTool(GetServerInfo, { workspace_id: id(3) }, call({ prometheusUrl: ampUrl(3) }));
    expect(info).toMatchObject({ prometheus_url: ampUrl(3).slice(0, -1) });
  });

  it("ALLOWED_WORKSPACES adds workspaces a pinned deployment may read, or alone limits it", async () => {
    const pinned = call({ prometheusUrl: ampUrl(3), allowedWorkspaces: [id(1)] });
    expect(await callTool(GetServerInfo, { workspace_id: id(1) }, pinned)).toMatchObject({
      prometheus_url: ampUrl(1).slice(0, -1),
    });
    const listOnly = call({ allowedWorkspaces: [id(1), id(5)] });
    expect(await callTool(GetServerInfo, { workspace_id: id(5) }, listOnly)).toMatchObject({
      prometheus_url: ampUrl(5).slice(0, -1),
    });
    amp.resetCalls();
    const refused = await toolError(GetServerInfo, { workspace_id: id(3) }, listOnly);
    expect(refused.message).toMatch(
      new RegExp(
        `^Workspace ${id(3)} is not one this deployment may read: it is limited to ${id(1)}, ${id(5)}\\. To read others`,
      ),
    );
    const required = await toolError(ExecuteQuery, { query: "up" }, listOnly);
    expect(required.message).toBe(
      `Workspace ID is required when no Prometheus URL is configured. This deployment may read ${id(1)}, ${id(5)}: pass one of them as workspace_id.`,
    );
    expect(amp.calls).toEqual({ ListWorkspaces: 0, DescribeWorkspace: 0 });
  });

  it("a plain Prometheus PROMETHEUS_URL without an allow-list does not limit workspace_id (documented)", async () => {
    const info = await callTool(
      GetServerInfo,
      { workspace_id: id(1) },
      call({ prometheusUrl: "http://prometheus.internal:9090/" }),
    );
    expect(info).toMatchObject({ prometheus_url: ampUrl(1).slice(0, -1) });
  });

  it("refuses a region outside the function's partition before building any client", async () => {
    const first = call();
    for (const [tool, args] of [
      [GetAvailableWorkspaces, { region: "us-fake-9" }],
      [GetServerInfo, { region: "us-fake-9" }],
      [GetServerInfo, { region: "us-fake-9", workspace_id: id(1) }],
      [ExecuteQuery, { region: "cn-north-1", workspace_id: id(1), query: "up" }],
    ] as const) {
      const error = await toolError(tool, args, makeToolCall(first.settings, { upstream: first.upstream }));
      expect(error).toBeInstanceOf(ToolError);
      expect(error.message).toMatch(
        /^Unknown AWS region "(us-fake-9|cn-north-1)": this function runs in the aws partition, whose regions include us-west-2, .*us-east-1.*\. Pass one of them, or omit region to use us-west-2\.$/,
      );
    }
    expect(first.upstream.cacheSizes()).toEqual({
      credentialsProviders: 0,
      ampClients: 0,
      signers: 0,
      workspaceEndpoints: 0,
    });
    expect(amp.calls).toEqual({ ListWorkspaces: 0, DescribeWorkspace: 0 });
    expect(amp.rejected).toBe(0);
  });

  it("refuses a region outside ALLOWED_REGIONS (the regions the deployment's role may call) before any call", async () => {
    const first = call({ allowedRegions: [REGION, "eu-west-1"] });
    for (const [tool, args] of [
      [GetAvailableWorkspaces, { region: "ap-southeast-2" }],
      [GetServerInfo, { region: "ap-southeast-2", workspace_id: id(1) }],
      [ExecuteQuery, { region: "us-east-1", workspace_id: id(1), query: "up" }],
    ] as const) {
      const error = await toolError(tool, args, makeToolCall(first.settings, { upstream: first.upstream }));
      expect(error).toBeInstanceOf(ToolError);
      expect(error.message).toMatch(
        new RegExp(
          `^Region "(ap-southeast-2|us-east-1)" is not enabled for this deployment, which may use ${REGION}, eu-west-1 \\(its \`regions\` parameter and its workspaces' regions\\)\\. Omit region to use ${REGION}, or ask whoever deploys it to add \\1\\.$`,
        ),
      );
    }
    expect(Object.values(first.upstream.cacheSizes())).toEqual([0, 0, 0, 0]);
    expect(amp.calls).toEqual({ ListWorkspaces: 0, DescribeWorkspace: 0 });
    // The listed regions work as before.
    const listed = (await callTool(GetAvailableWorkspaces, {}, call({ allowedRegions: [REGION] }))) as {
      workspaces: unknown[];
    };
    expect(listed.workspaces.length).toBeGreaterThan(0);
  });

  it("a hundred made-up regions, thirty times over, build nothing", async () => {
    const first = call();
    for (let round = 0; round < 30; round++) {
      for (let n = 0; n < 100; n++) {
        await expect(
          callTool(
            GetServerInfo,
            { region: `xx-made-${n}`, workspace_id: id(1) },
            makeToolCall(first.settings, { upstream: first.upstream }),
          ),
        ).rejects.toThrow(/^Unknown AWS region/);
      }
    }
    expect(Object.values(first.upstream.cacheSizes())).toEqual([0, 0, 0, 0]);
    expect(amp.calls.DescribeWorkspace).toBe(0);
  });

  it("keeps at most MAX_CACHED_CLIENTS AMP clients however many real regions are used", async () => {
    const first = call();
    const regions = (PARTITIONS[0]?.regions ?? []).filter((region) => region !== REGION);
    expect(regions.length).toBeGreaterThan(MAX_CACHED_CLIENTS);
    for (const region of regions) {
      // The fake only accepts us-west-2 signatures: each call fails, but only after its client was built.
      await toolError(
        GetAvailableWorkspaces,
        { region },
        makeToolCall(first.settings, { upstream: first.upstream }),
      );
    }
    expect(amp.rejected).toBe(regions.length);
    expect(first.upstream.cacheSizes()).toMatchObject({
      ampClients: MAX_CACHED_CLIENTS,
      credentialsProviders: 1,
    });
  });

  it("keeps at most MAX_CACHED_ENDPOINTS workspace endpoints", async () => {
    const many = Array.from({ length: MAX_CACHED_ENDPOINTS + 20 }, (_, n) => ({
      workspaceId: `ws-many-${n}`,
      status: "ACTIVE",
    }));
    amp.setWorkspaces(many);
    const first = call();
    for (const { workspaceId } of many) {
      await callTool(
        GetServerInfo,
        { workspace_id: workspaceId },
        makeToolCall(first.settings, { upstream: first.upstream }),
      );
    }
    expect(amp.calls.DescribeWorkspace).toBe(many.length);
    expect(first.upstream.cacheSizes().workspaceEndpoints).toBe(MAX_CACHED_ENDPOINTS);
  });

  it("says the role lacks the aps permission on AccessDenied", async () => {
    const denied = await startFakeAmp({ region: REGION, workspaces: FIVE, deny: ["ListWorkspaces"] });
    try {
      const error = await toolError(GetAvailableWorkspaces, {}, call({ ampEndpoint: denied.url }));
      expect(error).toBeInstanceOf(ToolError);
      expect(error.message).toMatch(
        /^Access denied for ListWorkspaces in us-west-2: .*lacks the aps:ListWorkspaces permission/,
      );
    } finally {
      await denied.close();
    }
  });

  it("reports a rejected signature (wrong secret) without leaking credentials", async () => {
    const strict = await startFakeAmp({
      region: REGION,
      workspaces: FIVE,
      secretAccessKey: "another-secret",
    });
    try {
      const error = await toolError(GetAvailableWorkspaces, {}, call({ ampEndpoint: strict.url }));
      expect(error).toBeInstanceOf(ToolError);
      expect(error.message).toMatch(/InvalidSignatureException/);
      expect(error.message).not.toContain("test-secret-not-real");
      expect(strict.lastRejection).toBe("signature mismatch");
    } finally {
      await strict.close();
    }
  });

  it("gives up at the deadline when the control plane hangs", async () => {
    const hanging = await startFakeAmp({ region: REGION, workspaces: FIVE, hang: ["ListWorkspaces"] });
    // On a clock moved by hand: the request has 500 ms, the tool 250 ms less (the server's margin).
    useFakeClock();
    try {
      const answer = watch(
        toolError(
          GetAvailableWorkspaces,
          {},
          makeToolCall({ ampEndpoint: hanging.url, defaultRegion: REGION }, { timeoutMs: 500 }),
        ),
      );
      await waitUntil(() => hanging.calls.ListWorkspaces === 1, "ListWorkspaces reaching AMP");
      await advance(249);
      expect(answer.settled).toBe(false);
      await advance(1);
      expect(answer.settled).toBe(true);
      const error = await answer.promise;
      expect(error).toBeInstanceOf(ToolError);
      // Bounded by the tool's own deadline, not by the control plane call's 15 s cap.
      expect(error.message).toBe("Amazon Managed Prometheus (ListWorkspaces) did not answer within 250 ms.");
      expect(hanging.calls.ListWorkspaces).toBe(1);
    } finally {
      vi.useRealTimers();
      await hanging.close();
    }
  });

  it("names the unreachable control plane", async () => {
    const error = await toolError(GetAvailableWorkspaces, {}, call({ ampEndpoint: await refusedUrl() }));
    expect(error).toBeInstanceOf(ToolError);
    expect(error.message).toMatch(
      /Could not reach the AMP control plane for ListWorkspaces in us-west-2: ECONNREFUSED/,
    );
  });

  it("needs a workspace for queries when PROMETHEUS_URL is unset", async () => {
    await expect(callTool(ExecuteQuery, { query: "up" }, call())).rejects.toThrow(
      "Workspace ID is required when no Prometheus URL is configured. Please use GetAvailableWorkspaces to list available workspaces and choose one.",
    );
    expect(amp.calls.DescribeWorkspace + amp.calls.ListWorkspaces).toBe(0);
  });
});

describe("missing credentials", () => {
  const saved = { ...process.env };
  let amp: FakeAmp;

  beforeAll(async () => {
    amp = await startFakeAmp({ region: REGION, workspaces: FIVE });
    // A profile that exists nowhere, with no config files to find it in: the chain must fail, offline.
    process.env.AWS_CONFIG_FILE = "/nonexistent/aws-config";
    process.env.AWS_SHARED_CREDENTIALS_FILE = "/nonexistent/aws-credentials";
  });
  afterAll(async () => {
    for (const name of ["AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"]) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
    await amp?.close();
  });

  it("says the credentials are missing, for the control plane and the data plane", async () => {
    const call = makeToolCall({
      ampEndpoint: amp.url,
      defaultRegion: REGION,
      prometheusUrl: `${amp.url}/workspaces/ws-x/`,
    });
    const control = await toolError(GetAvailableWorkspaces, { profile: "no-such-profile" }, call);
    expect(control.message).toMatch(
      /^AWS credentials are missing: none could be loaded from profile "no-such-profile"/,
    );
    const data = await toolError(ExecuteQuery, { query: "up", profile: "no-such-profile" }, call);
    expect(data.message).toMatch(
      /^AWS credentials are missing: none could be loaded from profile "no-such-profile"/,
    );
    expect(amp.calls.ListWorkspaces + amp.rejected).toBe(0);
  });
});
