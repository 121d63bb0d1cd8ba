import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { describeTarget, loadConfig } from "../../src/config/index.js";
import { type AuthProxy, startAuthProxy } from "../support/authProxy.js";
import { httpEvent, lambdaContext } from "../support/events.js";
import { type FakeAmp, startFakeAmp } from "../support/fakeAmp.js";
import { type FakeSecrets, startFakeSecrets } from "../support/fakeSecrets.js";
import { type Handler, makeHandler } from "../support/handler.js";
import { prometheusAvailable, type RunningPrometheus, startPrometheus } from "../support/prometheus.js";
import { type SigV4Proxy, startSigV4Proxy } from "../support/sigv4Proxy.js";
import { TEST_PASSWORD, TEST_SECRETS, TEST_TOKEN, TEST_USER } from "../support/testSecrets.js";

// BACKENDS: one deployment, several named servers, each with its own URL, auth, secret, headers,
// Alertmanager and tenants. The servers are one real Prometheus seen through proxies of our own that
// check what each backend must send: a bearer token (read from a SigV4-checking fake of Secrets
// Manager), basic auth and a tenant header (as Mimir), the tenant in the path (as VictoriaMetrics
// cluster's vmselect). Each proxy records what reached it, so a test sees which backend a call used.

const REGION = "us-east-1";
const TOKEN_ARN = `arn:aws:secretsmanager:${REGION}:123456789012:secret:backend-token-AbCdEf`;
const BASIC_ARN = `arn:aws:secretsmanager:${REGION}:123456789012:secret:backend-basic-AbCdEf`;
const CONTEXT = lambdaContext(30_000);

interface ToolResult {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

describe.skipIf(!prometheusAvailable())("BACKENDS: several named servers from one deployment", () => {
  let prometheus: RunningPrometheus;
  let secrets: FakeSecrets;
  let bearer: AuthProxy;
  let mimir: AuthProxy;
  let vmselect: AuthProxy;
  let plain: AuthProxy;
  let handler: Handler;
  let backends: Record<string, unknown>;
  const saved = process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER;
  const bodies: string[] = [];

  beforeAll(async () => {
    prometheus = await startPrometheus();
    secrets = await startFakeSecrets(REGION);
    secrets.set(TOKEN_ARN, TEST_TOKEN);
    secrets.set(BASIC_ARN, `${TEST_USER}:${TEST_PASSWORD}`);
    process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = secrets.url;
    [plain, bearer, mimir, vmselect] = await Promise.all([
      startAuthProxy(prometheus.url, {}),
      startAuthProxy(prometheus.url, { authorization: () => `Bearer ${TEST_TOKEN}` }),
      startAuthProxy(prometheus.url, {
        authorization: () => `Basic ${Buffer.from(`${TEST_USER}:${TEST_PASSWORD}`).toString("base64")}`,
        tenant: { header: "X-Scope-OrgID", allowed: ["team-a", "team-b"] },
      }),
      startAuthProxy(prometheus.url, { pathTenant: { allowed: ["42", "43:1"] } }),
    ]);
    backends = {
      prom: { url: plain.url, default: true, description: "The lab Prometheus" },
      secure: { url: bearer.url, auth: "bearer", secret: TOKEN_ARN, kind: "thanos" },
      mimir: {
        url: `${mimir.url}/`,
        auth: "basic",
        secret: BASIC_ARN,
        kind: "mimir",
        alertmanager_url: `${mimir.url}/alertmanager`,
        allowed_tenants: ["team-a"],
      },
      vm: { url: `${vmselect.url}/select/{tenant}/prometheus`, allowed_tenants: ["42", "43:1"] },
    };
    handler = makeHandler({
      BACKENDS: JSON.stringify(backends),
      AWS_REGION: REGION,
      JWT_ISSUER: "https://issuer.example.com",
      TENANT_CLAIM: "custom:tenant",
    });
  }, 120_000);

  afterEach(() => {
    vi.restoreAllMocks();
  });

  afterAll(async () => {
    if (saved === undefined) delete process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER;
    else process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = saved;
    await Promise.all([plain?.close(), bearer?.close(), mimir?.close(), vmselect?.close(), secrets?.close()]);
    await prometheus?.close();
    for (const body of bodies) for (const secret of TEST_SECRETS) expect(body).not.toContain(secret);
  });

  /** An MCP request as a caller whose JWT carries this tenant (none: no token at all): its status and body. */
  async function post(
    tenant: string | undefined,
    method: string,
    params: Record<string, unknown> = {},
    target: Handler = handler,
  ): Promise<{ status: number; body: { result?: Record<string, unknown>; error?: { message: string } } }> {
    const event = httpEvent("v2", {
      method: "POST",
      path: "/mcp",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    if (tenant !== undefined) {
      (event.requestContext as Record<string, unknown>).authorizer = {
        jwt: { claims: { sub: `user-${tenant}`, "custom:tenant": tenant }, scopes: [] },
      };
    }
    const answer = (await target(event, CONTEXT)) as { statusCode: number; body: string };
    bodies.push(answer.body);
    return { status: answer.statusCode, body: JSON.parse(answer.body) };
  }

  /** As `post`, answered HTTP 200: its body. */
  async function rpc(
    tenant: string | undefined,
    method: string,
    params: Record<string, unknown> = {},
    target: Handler = handler,
  ): Promise<{ result?: Record<string, unknown>; error?: { message: string } }> {
    const { status, body } = await post(tenant, method, params, target);
    expect(status, JSON.stringify(body)).toBe(200);
    return body;
  }

  async function call(
    tenant: string,
    name: string,
    args: Record<string, unknown>,
    target: Handler = handler,
  ): Promise<ToolResult> {
    const { result } = await rpc(tenant, "tools/call", { name, arguments: args }, target);
    return result as unknown as ToolResult;
  }

  const temperature = { query: "test_temperature_celsius", time: "1700000000" };

  it("each backend gets its own auth, secret, headers and tenant placement; the default takes calls without workspace_id", async () => {
    const expected = (await call("team-a", "ExecuteQuery", temperature)).content[0]?.text;
    expect(plain.seen.length).toBe(1);
    expect(expected).toContain('"room":"lab"');

    const reads = secrets.reads(TOKEN_ARN);
    const secure = await call("team-a", "ExecuteQuery", { ...temperature, workspace_id: "secure" });
    expect(secure.isError, JSON.stringify(secure)).toBeFalsy();
    expect(secure.content[0]?.text).toBe(expected);
    expect(bearer.seen.at(-1)?.authorization).toBe(`Bearer ${TEST_TOKEN}`);
    expect(bearer.seen.at(-1)?.["x-scope-orgid"]).toBe("team-a");
    expect(secrets.reads(TOKEN_ARN) - reads).toBe(1);

    const viaMimir = await call("team-a", "ExecuteQuery", { ...temperature, workspace_id: "mimir" });
    expect(viaMimir.content[0]?.text).toBe(expected);
    expect(mimir.seen.at(-1)?.["x-scope-orgid"]).toBe("team-a");
    // Nothing of one backend's reached another: the plain one saw no credentials at all.
    expect(plain.seen.every((headers) => headers.authorization === undefined)).toBe(true);
    expect(secrets.rejected, secrets.lastRejection).toBe(0);
  });

  it("{tenant} in a URL puts each caller's tenant in the path, and no tenant header is sent there", async () => {
    for (const tenant of ["42", "43:1"]) {
      const before = vmselect.paths.length;
      const result = await call(tenant, "ExecuteQuery", { ...temperature, workspace_id: "vm" });
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      expect(vmselect.paths.slice(before)).toEqual([`/select/${tenant}/prometheus/api/v1/query`]);
      expect(vmselect.seen.at(-1)?.["x-scope-orgid"]).toBeUndefined();
    }
  });

  it("PROMETHEUS_URL takes {tenant} the same way, without BACKENDS; GetServerInfo says victoriametrics", async () => {
    const single = makeHandler({
      PROMETHEUS_URL: `${vmselect.url}/select/{tenant}/prometheus`,
      PROMETHEUS_AUTH: "none",
      AWS_REGION: REGION,
      JWT_ISSUER: "https://issuer.example.com",
      TENANT_CLAIM: "custom:tenant",
    });
    const before = vmselect.paths.length;
    const { result } = await rpc(
      "43:1",
      "tools/call",
      { name: "ExecuteQuery", arguments: temperature },
      single,
    );
    expect((result as unknown as ToolResult).isError, JSON.stringify(result)).toBeFalsy();
    expect(vmselect.paths.slice(before)).toEqual(["/select/43:1/prometheus/api/v1/query"]);
    expect(vmselect.seen.at(-1)?.["x-scope-orgid"]).toBeUndefined();
    const info = await rpc("42", "tools/call", { name: "GetServerInfo", arguments: {} }, single);
    expect((info.result as unknown as ToolResult).structuredContent).toMatchObject({
      prometheus_url: `${vmselect.url}/select/42/prometheus`,
      backend_kind: "victoriametrics",
    });
    // A tenant that would change the path is no tenant at all: refused before anything is read.
    const odd = await post(
      "../admin",
      "tools/call",
      { name: "ExecuteQuery", arguments: temperature },
      single,
    );
    expect(odd.status).toBe(403);
    expect(odd.body.error?.message).toMatch(/custom:tenant claim is not a tenant this server can use/);
    expect(vmselect.paths.length).toBe(before + 1);
  });

  it("allowed_tenants: another tenant is refused before any request is sent", async () => {
    const seen = { mimir: mimir.seen.length, vm: vmselect.seen.length };
    const refusedMimir = await call("team-b", "ExecuteQuery", { ...temperature, workspace_id: "mimir" });
    expect(refusedMimir.isError).toBe(true);
    expect(refusedMimir.content[0]?.text).toMatch(/Backend mimir is not open to tenant team-b/);
    const refusedVm = await call("team-a", "ExecuteQuery", { ...temperature, workspace_id: "vm" });
    expect(refusedVm.content[0]?.text).toMatch(/Backend vm is not open to tenant team-a/);
    expect({ mimir: mimir.seen.length, vm: vmselect.seen.length }).toEqual(seen);
  });

  it("tools/list: workspace_id takes exactly the backend names (no AMP here), region and profile are gone", async () => {
    const { result } = await rpc("team-a", "tools/list");
    const tools = result?.tools as { name: string; inputSchema: { properties: Record<string, unknown> } }[];
    const query = tools.find((tool) => tool.name === "ExecuteQuery");
    const workspaceId = query?.inputSchema.properties.workspace_id as { anyOf: { enum?: string[] }[] };
    expect(workspaceId.anyOf[0]?.enum).toEqual(["prom", "secure", "mimir", "vm"]);
    expect(query?.inputSchema.properties.region).toBeUndefined();
    expect(query?.inputSchema.properties.profile).toBeUndefined();
    expect(tools.some((tool) => tool.name === "GetAvailableWorkspaces")).toBe(true);

    const wrong = await call("team-a", "ExecuteQuery", { ...temperature, workspace_id: "nope" });
    expect(wrong.isError).toBe(true);
    expect(wrong.content[0]?.text).toMatch(/prom, secure, mimir, vm/);
    const amp = await call("team-a", "ExecuteQuery", { ...temperature, workspace_id: "ws-12345678" });
    expect(amp.isError).toBe(true);
  });

  it("GetAvailableWorkspaces lists the backends for this caller (asking none of them); GetServerInfo names kind and auth", async () => {
    const seen = plain.seen.length + bearer.seen.length + mimir.seen.length + vmselect.seen.length;
    const listing = (await call("team-a", "GetAvailableWorkspaces", {})).structuredContent as {
      backends: { name: string; kind: string; auth_mode: string; is_default: boolean; allowed: boolean }[];
      configured_workspace_id: string | null;
      requires_user_selection: boolean;
      workspaces: unknown[];
    };
    expect(
      listing.backends.map(({ name, kind, auth_mode, is_default, allowed }) => [
        name,
        kind,
        auth_mode,
        is_default,
        allowed,
      ]),
    ).toEqual([
      ["prom", "prometheus", "none", true, true],
      ["secure", "thanos", "bearer", false, true],
      ["mimir", "mimir", "basic", false, true],
      ["vm", "victoriametrics", "none", false, false],
    ]);
    expect(listing.configured_workspace_id).toBe("prom");
    expect(listing.requires_user_selection).toBe(false);
    expect(listing.workspaces).toEqual([]);
    expect(plain.seen.length + bearer.seen.length + mimir.seen.length + vmselect.seen.length).toBe(seen);

    const info = (await call("team-a", "GetServerInfo", { workspace_id: "mimir" })).structuredContent;
    expect(info).toMatchObject({
      prometheus_url: `${mimir.url}`,
      auth_mode: "basic",
      backend_kind: "mimir",
      backend: "mimir",
      backends: ["prom", "secure", "mimir", "vm"],
    });
    const text = JSON.stringify(info);
    for (const arn of [TOKEN_ARN, BASIC_ARN]) expect(text).not.toContain(arn);
  });

  it("ListSilences reads the backend's own Alertmanager with its credentials; a backend without one says so", async () => {
    const before = mimir.paths.length;
    const silences = await call("team-a", "ListSilences", { workspace_id: "mimir" });
    // The proxy stands for Mimir: its Alertmanager path reaches Prometheus, which has none (404).
    expect(mimir.paths.slice(before)).toEqual(["/alertmanager/api/v2/silences"]);
    expect(mimir.seen.at(-1)?.authorization).toMatch(/^Basic /);
    expect(silences.content[0]?.text).toMatch(/Alertmanager/);
    const none = await call("team-a", "ListSilences", { workspace_id: "secure" });
    expect(none.isError).toBe(true);
    expect(none.content[0]?.text).toMatch(/Backend secure has no Alertmanager configured.*alertmanager_url/);
  });

  it("a file in the package holds BACKENDS as well; without a default, a call must name one", async () => {
    const dir = await mkdtemp(join(tmpdir(), "backends-"));
    try {
      const file = join(dir, "backends.json");
      const { prom, secure } = backends as { prom: Record<string, unknown>; secure: unknown };
      await writeFile(file, JSON.stringify({ prom: { ...prom, default: false }, secure }));
      const fromFile = makeHandler({ BACKENDS: file, AWS_REGION: REGION });
      const { result } = await rpc(
        undefined,
        "tools/call",
        { name: "ExecuteQuery", arguments: temperature },
        fromFile,
      );
      const text = (result as unknown as ToolResult).content[0]?.text;
      expect(text).toMatch(/several backends and no default: pass one of prom, secure as workspace_id/);
      const info = await rpc(undefined, "tools/call", { name: "GetServerInfo", arguments: {} }, fromFile);
      expect((info.result as unknown as ToolResult).content[0]?.text).toMatch(
        /several backends and no default: pass one of prom, secure/,
      );
      const named = await rpc(
        undefined,
        "tools/call",
        { name: "ExecuteQuery", arguments: { ...temperature, workspace_id: "prom" } },
        fromFile,
      );
      expect((named.result as unknown as ToolResult).isError).toBeFalsy();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("GetAvailableWorkspaces with AMP in play: the backends, then the region's workspaces; a failed listing keeps the backends and says why", async () => {
    const [listing, denying] = await Promise.all([
      startFakeAmp({ region: REGION, workspaces: [{ workspaceId: "ws-fake-1", status: "ACTIVE" }] }),
      startFakeAmp({ region: REGION, workspaces: [], deny: ["ListWorkspaces"] }),
    ]);
    try {
      const list = async (ampEndpoint: string) => {
        const handler = makeHandler({
          BACKENDS: JSON.stringify({ lab: { url: plain.url } }),
          AMP_ENDPOINT: ampEndpoint,
          AWS_REGION: REGION,
        });
        const { result } = await rpc(
          undefined,
          "tools/call",
          { name: "GetAvailableWorkspaces", arguments: {} },
          handler,
        );
        return result as unknown as ToolResult;
      };
      const both = (await list(listing.url)).structuredContent as {
        backends: { name: string }[];
        workspaces: { workspace_id: string }[];
        message: string;
      };
      expect(both.backends.map((backend) => backend.name)).toEqual(["lab"]);
      expect(both.workspaces.map((workspace) => workspace.workspace_id)).toEqual(["ws-fake-1"]);
      expect(both.message).toMatch(/AMP workspaces are passed by their ws-… id/);
      const denied = await list(denying.url);
      expect(denied.isError, JSON.stringify(denied)).toBeFalsy();
      const kept = denied.structuredContent as {
        backends: { name: string }[];
        workspaces: unknown[];
        message: string;
      };
      expect(kept.backends.map((backend) => backend.name)).toEqual(["lab"]);
      expect(kept.workspaces).toEqual([]);
      expect(kept.message).toMatch(/The AMP workspaces of us-east-1 could not be listed: /);
      expect(listing.rejected + denying.rejected).toBe(0);
    } finally {
      await Promise.all([listing.close(), denying.close()]);
    }
  });

  it("with an AMP workspace among them, workspace ids stay AMP's and the deployment is limited to its workspaces", async () => {
    const config = loadConfig({
      BACKENDS: JSON.stringify({
        prod: { url: "https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-prod-1" },
        lab: { url: plain.url, default: true },
      }),
      AWS_REGION: REGION,
    });
    expect(config.backendsOnly).toBe(false);
    expect(config.backends?.map((backend) => [backend.name, backend.auth, backend.kind])).toEqual([
      ["prod", "sigv4", "amp"],
      ["lab", "none", "prometheus"],
    ]);
    expect(config.allowedWorkspaces).toEqual([
      "https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-prod-1",
    ]);
    expect(config.allowedRegions ?? []).not.toContain("eu-west-2");
    expect(describeTarget(config)).toMatch(
      /prod = https:\/\/aps-workspaces.*\[amp, auth SigV4 \(AMP\)\]; lab \(default\)/,
    );
    const mixed = makeHandler({
      BACKENDS: JSON.stringify({ lab: { url: plain.url } }),
      ALLOWED_WORKSPACES: "ws-other",
      AWS_REGION: REGION,
    });
    const { result } = await rpc(undefined, "tools/list", {}, mixed);
    const tools = result?.tools as {
      name: string;
      inputSchema: { properties: Record<string, { pattern?: string; anyOf?: { pattern?: string }[] }> };
    }[];
    const property = tools.find((tool) => tool.name === "ExecuteQuery")?.inputSchema.properties.workspace_id;
    const pattern = property?.anyOf?.[0]?.pattern ?? property?.pattern;
    expect(pattern).toBe("^(?:lab|ws-[A-Za-z0-9_-]+)$");
    const other = await rpc(
      undefined,
      "tools/call",
      { name: "ExecuteQuery", arguments: { ...temperature, workspace_id: "ws-elsewhere" } },
      mixed,
    );
    expect((other.result as unknown as ToolResult).content[0]?.text).toMatch(
      /Workspace ws-elsewhere is not one this deployment may read/,
    );
  });

  // Issue 36, finding 1: a backend naming an AMP workspace, open to tenant ops only. Its workspace is
  // listed by a fake AMP control plane whose DescribeWorkspace points at a SigV4-checking proxy in front
  // of the real Prometheus: a call that took the plain AMP path would read prod's data there.
  describe("an AMP workspace a backend names gets that backend's rules, whichever way a call names it", () => {
    const WS = "ws-prod-1";
    const AMP_URL = `https://aps-workspaces.${REGION}.amazonaws.com/workspaces/${WS}/`;
    let proxy: SigV4Proxy;
    let amp: FakeAmp;
    const tenantEnv = {
      AWS_REGION: REGION,
      JWT_ISSUER: "https://issuer.example.com",
      TENANT_CLAIM: "custom:tenant",
    };
    const withProd = (url: string, env: Record<string, string> = {}) =>
      makeHandler({
        BACKENDS: JSON.stringify({
          prod: { url, allowed_tenants: ["ops"] },
          lab: { url: plain.url, default: true },
        }),
        AMP_ENDPOINT: amp.url,
        ...tenantEnv,
        ...env,
      });
    /** What reached AMP and the workspace: DescribeWorkspace calls, requests at the proxy. */
    const reached = () => ({ describe: amp.calls.DescribeWorkspace, workspace: proxy.requests.length });
    const text = (result: ToolResult) => result.content[0]?.text ?? "";

    beforeAll(async () => {
      proxy = await startSigV4Proxy({ target: prometheus.url, region: REGION });
      amp = await startFakeAmp({
        region: REGION,
        workspaces: [
          { workspaceId: WS, alias: "prod", status: "ACTIVE", prometheusEndpoint: proxy.workspaceUrl(WS) },
          { workspaceId: "ws-open-1", status: "ACTIVE", prometheusEndpoint: proxy.workspaceUrl("ws-open-1") },
        ],
      });
    });

    afterAll(async () => {
      await Promise.all([proxy?.close(), amp?.close()]);
    });

    it("a tenant the backend refuses is refused by its name, its workspace id in any case, and its URL's variants; nothing reaches AMP", async () => {
      // The backend's URL as the issue has it, then without its trailing slash and with its id upper-cased.
      const handlers = [
        withProd(AMP_URL),
        withProd(AMP_URL.replace(/\/$/, "").replace(WS, WS.toUpperCase())),
      ];
      const before = reached();
      for (const target of handlers) {
        for (const workspace_id of ["prod", WS, "ws-PROD-1"]) {
          for (const [name, args] of [
            ["ExecuteQuery", { ...temperature, workspace_id }],
            ["ListSilences", { workspace_id }],
            ["GetServerInfo", { workspace_id }],
          ] as const) {
            const { result } = await rpc("dev", "tools/call", { name, arguments: args }, target);
            const refused = result as unknown as ToolResult;
            expect(refused.isError, `${name} ${workspace_id}: ${JSON.stringify(refused)}`).toBe(true);
            expect(text(refused)).toMatch(
              /: Backend prod.* is not open to tenant dev \(its allowed_tenants\); nothing was read/,
            );
            expect(text(refused)).not.toContain("aps-workspaces");
          }
        }
        // Another region does not make it another workspace.
        const { result } = await rpc(
          "dev",
          "tools/call",
          { name: "ExecuteQuery", arguments: { ...temperature, workspace_id: WS, region: "eu-west-1" } },
          target,
        );
        expect(text(result as unknown as ToolResult)).toMatch(/: Backend prod .*is not open to tenant dev/);
      }
      expect(amp.rejected, amp.lastRejection).toBe(0);
      expect(reached()).toEqual(before);
    });

    it("GetAvailableWorkspaces: the backend and its workspace are allowed alike for each caller; a refused caller sees no URL of either", async () => {
      const target = withProd(AMP_URL);
      const listFor = async (tenant: string) =>
        (await call(tenant, "GetAvailableWorkspaces", {}, target)).structuredContent as {
          backends: { name: string; allowed: boolean; prometheus_url?: string }[];
          workspaces: { workspace_id: string; allowed: boolean; prometheus_url?: string }[];
        };
      const dev = await listFor("dev");
      expect(dev.backends.find((backend) => backend.name === "prod")).toMatchObject({ allowed: false });
      expect(dev.backends.find((backend) => backend.name === "prod")).not.toHaveProperty("prometheus_url");
      expect(dev.workspaces.find((workspace) => workspace.workspace_id === WS)).toMatchObject({
        allowed: false,
      });
      expect(dev.workspaces.find((workspace) => workspace.workspace_id === WS)).not.toHaveProperty(
        "prometheus_url",
      );
      expect(JSON.stringify(dev)).not.toContain(WS.replace("ws-", "workspaces/ws-"));

      const ops = await listFor("ops");
      expect(ops.backends.find((backend) => backend.name === "prod")).toMatchObject({
        allowed: true,
        prometheus_url: AMP_URL,
      });
      expect(ops.workspaces.find((workspace) => workspace.workspace_id === WS)).toMatchObject({
        allowed: true,
        prometheus_url: proxy.workspaceUrl(WS),
      });
      // A workspace no backend names keeps the deployment's rule (not on its list here), for both.
      for (const listing of [dev, ops]) {
        expect(listing.workspaces.find((workspace) => workspace.workspace_id === "ws-open-1")).toMatchObject({
          allowed: false,
        });
      }
    });

    it("the tenant it admits reads the workspace by id through the backend (its URL, region and signing), not through DescribeWorkspace", async () => {
      // The backend's URL is the proxy's workspace URL; ALLOWED_WORKSPACES lists the id as well.
      const target = withProd(proxy.workspaceUrl(WS), { ALLOWED_WORKSPACES: WS });
      const expected = text(await call("ops", "ExecuteQuery", temperature, target));
      expect(expected).toContain('"room":"lab"');
      const before = reached();
      for (const workspace_id of ["prod", WS]) {
        const result = await call("ops", "ExecuteQuery", { ...temperature, workspace_id }, target);
        expect(result.isError, JSON.stringify(result)).toBeFalsy();
        expect(text(result)).toBe(expected);
      }
      expect(reached()).toEqual({ describe: before.describe, workspace: before.workspace + 2 });
      expect(proxy.requests.slice(-2).every((request) => request.accepted)).toBe(true);
      const refused = await call("dev", "ExecuteQuery", { ...temperature, workspace_id: WS }, target);
      expect(text(refused)).toMatch(
        /: Backend prod \(workspace ws-prod-1 is its\) is not open to tenant dev/,
      );
      const elsewhere = await call(
        "ops",
        "ExecuteQuery",
        { ...temperature, workspace_id: WS, region: "eu-west-1" },
        withProd(AMP_URL),
      );
      expect(text(elsewhere)).toMatch(
        /: Backend prod is an AMP workspace in us-east-1 \(its URL says so\): region "eu-west-1" cannot apply/,
      );
      expect(reached()).toEqual({ describe: before.describe, workspace: before.workspace + 2 });
    });
  });
});

describe("BACKENDS configuration", () => {
  const base = { AWS_REGION: REGION };
  const load = (backends: unknown, env: Record<string, string> = {}) =>
    loadConfig({
      ...base,
      BACKENDS: typeof backends === "string" ? backends : JSON.stringify(backends),
      ...env,
    });

  it("refuses what it cannot use, naming the backend and field, and never quoting a secret", () => {
    const cases: [unknown, RegExp][] = [
      ["{not json", /a JSON object of backend names/],
      [`[{"secret": "${TEST_TOKEN}"}]`, /a JSON object, or the path of a readable file/],
      [{}, /at least one backend/],
      [{ "ws-a": { url: "http://p" } }, /not starting with ws-/],
      [{ a: { url: "ftp://p" } }, /backend "a" "url" as an http\(s\) URL/],
      [{ a: { url: "http://p", auth: "digest" } }, /backend "a" "auth" as one of sigv4, none, basic, bearer/],
      [{ a: { url: "http://p", auth: "bearer" } }, /backend "a" "secret" with auth bearer/],
      [{ a: { url: "http://p", secret: TEST_TOKEN } }, /backend "a" without "secret" with auth none/],
      [
        { a: { url: "http://p", headers: { Authorization: TEST_TOKEN } } },
        /backend "a" "headers" with headers other than Authorization/,
      ],
      [{ a: { url: "http://p", kind: "influx" } }, /"kind" as one of amp, prometheus, mimir/],
      [
        { a: { url: "http://p", default: true }, b: { url: "http://q", default: true } },
        /one default backend at most, not a and b/,
      ],
      [{ a: { url: "http://p", tenants: ["x"] } }, /only the fields url, auth, .*; not tenants/],
      [
        { a: { url: "http://p", allowed_tenants: ["team-a", "team-a|team-b"] } },
        /backend "a" "allowed_tenants" as a non-empty list of tenants, each 1 to 128 letters/,
      ],
      [
        { a: { url: "http://p", allowed_tenants: ["x"] } },
        /TENANT_CLAIM to be set as well: backend "a" lists allowed_tenants/,
      ],
      [{ a: { url: "http://p/select/{tenant}/prometheus" } }, /TENANT_CLAIM to be set as well: \{tenant\}/],
      [
        {
          a: {
            url: "http://user:pw@p",
            auth: "bearer",
            secret: "arn:aws:secretsmanager:us-east-1:123456789012:secret:x",
          },
        },
        /without user:password@ with auth bearer/,
      ],
    ];
    for (const [backends, message] of cases) {
      let thrown: Error | undefined;
      try {
        load(backends);
      } catch (error) {
        thrown = error as Error;
      }
      expect(thrown?.message, JSON.stringify(backends)).toMatch(message);
      expect(thrown?.message).not.toContain(TEST_TOKEN);
    }
    // In Lambda the credentials themselves are refused, without repeating them.
    expect(() =>
      load({ a: { url: "http://p", auth: "bearer", secret: TEST_TOKEN } }, { AWS_LAMBDA_FUNCTION_NAME: "f" }),
    ).toThrow(/not the credentials themselves/);
    expect(() => load("/nonexistent/backends.json")).toThrow(
      /path of a readable file holding one \(ENOENT\)/,
    );
  });

  it("BACKENDS replaces the one-server settings: both at once is refused", () => {
    for (const variable of ["PROMETHEUS_URL", "PROMETHEUS_HEADERS", "ALERTMANAGER_URL", "PROMETHEUS_KIND"]) {
      const value =
        variable === "PROMETHEUS_HEADERS" ? "X-A: b" : variable === "PROMETHEUS_KIND" ? "thanos" : "http://x";
      expect(() => load({ a: { url: "http://p" } }, { [variable]: value })).toThrow(
        new RegExp(`${variable} unset: with BACKENDS`),
      );
    }
    expect(() => load({ a: { url: "http://p" } }, { PROMETHEUS_AUTH: "none" })).toThrow(
      /PROMETHEUS_AUTH unset/,
    );
    // sigv4, the deployment default, is what workspace ids use: accepted.
    expect(load({ a: { url: "http://p" } }, { PROMETHEUS_AUTH: "sigv4" }).backends).toHaveLength(1);
  });

  it("one backend is the default; kinds are inferred from URLs; PROMETHEUS_KIND names the single server's", () => {
    const config = load({ only: { url: "http://vmselect:8481/select/0/prometheus" } });
    expect(config.backends?.[0]).toMatchObject({ isDefault: true, kind: "victoriametrics", auth: "none" });
    expect(config.backendsOnly).toBe(true);
    expect(
      loadConfig({
        ...base,
        PROMETHEUS_URL: "http://thanos:10902",
        PROMETHEUS_AUTH: "none",
        PROMETHEUS_KIND: "thanos",
      }).prometheusKind,
    ).toBe("thanos");
    expect(
      loadConfig({ ...base, PROMETHEUS_URL: "http://p:9090", PROMETHEUS_AUTH: "none" }).prometheusKind,
    ).toBe("prometheus");
    expect(loadConfig({ ...base }).prometheusKind).toBe("amp");
    expect(() => loadConfig({ ...base, PROMETHEUS_KIND: "influx" })).toThrow(/PROMETHEUS_KIND/);
  });
});
