import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ExecuteQuery, GetAvailableWorkspaces, GetServerInfo } from "../../tools/index.js";
import { ToolError } from "../../tools/types.js";
import { type FakeAmp, type FakeWorkspace, startFakeAmp } from "../support/fakeAmp.js";
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
        },
        { workspace_id: id(2), alias: "No alias", status: "CREATING", region: REGION, is_configured: false },
        {
          workspace_id: id(3),
          alias: "staging",
          status: "ACTIVE",
          prometheus_url: ampUrl(3),
          region: REGION,
          is_configured: false,
        },
        { workspace_id: id(4), alias: "old", status: "DELETING", region: REGION, is_configured: false },
        {
          workspace_id: id(5),
          alias: "No alias",
          status: "ACTIVE",
          prometheus_url: ampUrl(5),
          region: REGION,
          is_configured: false,
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
    ]);
    expect(amp.calls.ListWorkspaces).toBe(3);
    expect(amp.calls.DescribeWorkspace).toBe(3);
    expect(amp.rejected).toBe(0);
  });

  it("lists the workspace named by PROMETHEUS_URL first, with the note", async () => {
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
    });
    expect(result.workspaces.slice(1).every((w) => w.is_configured === false && !("note" in w))).toBe(true);
    expect(result).toMatchObject({
      count: 5,
      requires_user_selection: false,
      configured_workspace_id: id(3),
      message: `A workspace ID (${id(3)}) was detected in the URL and will be used automatically. You can override it by explicitly providing a workspace_id parameter.`,
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

  it("an explicit workspace_id is resolved even when PROMETHEUS_URL names another one", async () => {
    const info = await callTool(GetServerInfo, { workspace_id: id(1) }, call({ prometheusUrl: ampUrl(3) }));
    expect(info).toMatchObject({ prometheus_url: ampUrl(1).slice(0, -1) });
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
    try {
      const started = Date.now();
      const error = await toolError(
        GetAvailableWorkspaces,
        {},
        makeToolCall({ ampEndpoint: hanging.url, defaultRegion: REGION }, { timeoutMs: 500 }),
      );
      expect(error).toBeInstanceOf(ToolError);
      expect(error.message).toMatch(
        /^Amazon Managed Prometheus \(ListWorkspaces\) did not answer within \d+ ms\.$/,
      );
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
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
