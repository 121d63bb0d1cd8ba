import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { configWarnings, loadConfig } from "../../src/config/index.js";
import { type AuthProxy, startAuthProxy } from "../support/authProxy.js";
import { captureOutput } from "../support/capture.js";
import { httpEvent } from "../support/events.js";
import { type FakeSecrets, startFakeSecrets } from "../support/fakeSecrets.js";
import { type Handler, makeHandler, postMcp } from "../support/handler.js";
import { prometheusAvailable, type RunningPrometheus, startPrometheus } from "../support/prometheus.js";
import {
  TEST_PASSWORD,
  TEST_ROTATED_TOKEN,
  TEST_SECRETS,
  TEST_TOKEN,
  TEST_USER,
} from "../support/testSecrets.js";

// Prometheus behind proxies of our own that check a bearer token, basic auth and a tenant header (as
// Mimir and the usual gateways refuse: 401 without or with wrong credentials or without a tenant, 403
// for another tenant), the credentials read from local fakes of Secrets Manager and SSM that check
// SigV4. Every value below that is a credential is looked for in every response and log line.

const REGION = "us-east-1";
const SECRET_ARN = `arn:aws:secretsmanager:${REGION}:123456789012:secret:prometheus-token-AbCdEf`;
const PARAMETER = "/team-a/prometheus/basic";
const TOKEN = TEST_TOKEN;
const ROTATED = TEST_ROTATED_TOKEN;
const USER = TEST_USER;
const PASSWORD = TEST_PASSWORD;
const SECRETS = TEST_SECRETS;

interface ToolResult {
  content: { type: string; text: string }[];
  isError?: boolean;
}

describe.skipIf(!prometheusAvailable())(
  "Prometheus behind bearer, basic and tenant checks; secrets from Secrets Manager and SSM",
  () => {
    let prometheus: RunningPrometheus;
    let secrets: FakeSecrets;
    let bearer: AuthProxy;
    let basic: AuthProxy;
    let tenant: AuthProxy;
    let expectedToken = TOKEN;
    const saved = { sm: process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER, ssm: process.env.AWS_ENDPOINT_URL_SSM };
    const bodies: string[] = [];

    beforeAll(async () => {
      prometheus = await startPrometheus();
      secrets = await startFakeSecrets(REGION);
      secrets.set(SECRET_ARN, TOKEN);
      secrets.set(PARAMETER, JSON.stringify({ username: USER, password: PASSWORD }));
      process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = secrets.url;
      process.env.AWS_ENDPOINT_URL_SSM = secrets.url;
      [bearer, basic, tenant] = await Promise.all([
        startAuthProxy(prometheus.url, { authorization: () => `Bearer ${expectedToken}` }),
        startAuthProxy(prometheus.url, {
          authorization: () => `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString("base64")}`,
          tenant: { header: "X-Scope-OrgID", allowed: ["team-a"] },
        }),
        startAuthProxy(prometheus.url, { tenant: { header: "X-Scope-OrgID", allowed: ["team-a"] } }),
      ]);
    }, 120_000);

    afterEach(() => {
      vi.restoreAllMocks();
    });

    afterAll(async () => {
      process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = saved.sm;
      process.env.AWS_ENDPOINT_URL_SSM = saved.ssm;
      if (saved.sm === undefined) delete process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER;
      if (saved.ssm === undefined) delete process.env.AWS_ENDPOINT_URL_SSM;
      await Promise.all([bearer?.close(), basic?.close(), tenant?.close(), secrets?.close()]);
      await prometheus?.close();
      // Not one credential in anything the handler answered.
      for (const body of bodies) for (const secret of SECRETS) expect(body).not.toContain(secret);
    });

    async function query(handler: Handler, expr = "test_temperature_celsius"): Promise<ToolResult> {
      const http = await postMcp(handler, {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "ExecuteQuery", arguments: { query: expr, time: "1700000000" } },
      });
      bodies.push(http.body);
      expect(http.statusCode).toBe(200);
      return (JSON.parse(http.body) as { result: ToolResult }).result;
    }

    const plain = (url: string, env: Record<string, string>) =>
      makeHandler({ PROMETHEUS_URL: url, AWS_REGION: REGION, LOG_LEVEL: "DEBUG", ...env });

    it("bearer: the token from a Secrets Manager secret, read once per container, on every request", async () => {
      const output = captureOutput();
      expectedToken = TOKEN;
      const before = secrets.reads(SECRET_ARN);
      const handler = plain(bearer.url, { PROMETHEUS_AUTH: "bearer", PROMETHEUS_SECRET: SECRET_ARN });
      for (let i = 0; i < 3; i++) {
        const result = await query(handler);
        expect(result.isError, JSON.stringify(result)).toBeFalsy();
        expect(result.content[0]?.text).toContain('"room":"lab"');
      }
      expect(secrets.reads(SECRET_ARN) - before).toBe(1);
      expect(bearer.seen.at(-1)?.authorization).toBe(`Bearer ${TOKEN}`);
      expect(secrets.rejected).toBe(0);
      for (const secret of SECRETS) expect(output.text()).not.toContain(secret);
    });

    it("basic from an SSM SecureString (JSON username/password) and the tenant header reach the server", async () => {
      const output = captureOutput();
      const handler = plain(basic.url, {
        PROMETHEUS_AUTH: "basic",
        PROMETHEUS_SECRET: `ssm:${PARAMETER}`,
        PROMETHEUS_HEADERS: "X-Scope-OrgID: team-a",
      });
      const result = await query(handler);
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      expect(basic.seen.at(-1)?.["x-scope-orgid"]).toBe("team-a");
      expect(secrets.reads(PARAMETER)).toBeGreaterThan(0);
      expect(secrets.rejected, secrets.lastRejection).toBe(0);
      for (const secret of SECRETS) expect(output.text()).not.toContain(secret);
    });

    it("Alertmanager (ALERTMANAGER_URL) gets the same credentials and headers as Prometheus", async () => {
      expectedToken = TOKEN;
      const handler = plain(bearer.url, {
        PROMETHEUS_AUTH: "bearer",
        PROMETHEUS_SECRET: SECRET_ARN,
        PROMETHEUS_HEADERS: "X-Scope-OrgID: team-a",
        ALERTMANAGER_URL: `${bearer.url}/alertmanager`,
      });
      const before = bearer.seen.length;
      const http = await postMcp(handler, {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "ListSilences", arguments: {} },
      });
      bodies.push(http.body);
      // The proxy forwards to Prometheus, which has no silences API: what matters is what reached it.
      const sent = bearer.seen.slice(before);
      expect(sent.length).toBeGreaterThan(0);
      for (const headers of sent) {
        expect(headers.authorization).toBe(`Bearer ${TOKEN}`);
        expect(headers["x-scope-orgid"]).toBe("team-a");
      }
    });

    it("a tenant header as JSON; a missing one is the server's 401, another tenant its 403, each a clear tool error", async () => {
      const ok = await query(
        plain(tenant.url, { PROMETHEUS_AUTH: "none", PROMETHEUS_HEADERS: '{"X-Scope-OrgID": "team-a"}' }),
      );
      expect(ok.isError, JSON.stringify(ok)).toBeFalsy();
      const other = await query(
        plain(tenant.url, { PROMETHEUS_AUTH: "none", PROMETHEUS_HEADERS: "X-Scope-OrgID: team-b" }),
      );
      expect(other.isError).toBe(true);
      expect(other.content[0]?.text).toMatch(/HTTP 403.*tenant team-b may not read here/);
      const none = await query(plain(tenant.url, { PROMETHEUS_AUTH: "none" }));
      expect(none.isError).toBe(true);
      expect(none.content[0]?.text).toMatch(/HTTP 401.*no org id/);
    });

    it("a rotated secret: the 401 makes it read again once, and the call succeeds; credentials refused twice are a clear error", async () => {
      const output = captureOutput();
      expectedToken = TOKEN;
      const handler = plain(bearer.url, { PROMETHEUS_AUTH: "bearer", PROMETHEUS_SECRET: SECRET_ARN });
      expect((await query(handler)).isError).toBeFalsy();
      const before = secrets.reads(SECRET_ARN);
      // Rotated: the server now wants the new token, the container still holds the old one.
      secrets.set(SECRET_ARN, ROTATED);
      expectedToken = ROTATED;
      const refusedBefore = bearer.refused[401] ?? 0;
      const rotated = await query(handler);
      expect(rotated.isError, JSON.stringify(rotated)).toBeFalsy();
      expect(secrets.reads(SECRET_ARN) - before).toBe(1);
      expect((bearer.refused[401] ?? 0) - refusedBefore).toBe(1);
      // The server wants a token the secret does not hold: one read again, then a clear error.
      expectedToken = "tok-nobody-has";
      const refused = await query(handler);
      expect(refused.isError).toBe(true);
      expect(refused.content[0]?.text).toMatch(
        /refused the credentials from the Secrets Manager secret arn:aws:secretsmanager:.*\(HTTP 401 .*read again/,
      );
      expect(secrets.reads(SECRET_ARN) - before).toBe(2);
      for (const secret of SECRETS) expect(output.text()).not.toContain(secret);
      expectedToken = TOKEN;
      secrets.set(SECRET_ARN, TOKEN);
    });

    it("a secret that cannot be read is a clear tool error naming where it was looked for", async () => {
      const missing = `arn:aws:secretsmanager:${REGION}:123456789012:secret:nothing-here-XyZ123`;
      const result = await query(
        plain(bearer.url, { PROMETHEUS_AUTH: "bearer", PROMETHEUS_SECRET: missing }),
      );
      expect(result.isError).toBe(true);
      expect(result.content[0]?.text).toMatch(
        /could not be read from the Secrets Manager secret arn:.*nothing-here-XyZ123 \(ResourceNotFoundException/,
      );
    });

    // Issue 36, finding 4: fetch refuses such a header with a TypeError quoting its whole value, which
    // was retried as "unreachable" and became the tool error and the DEBUG line.
    it("credentials no header can carry (a NUL, a non-Latin-1 character, a control character) are a misconfiguration naming the secret: never sent, retried or quoted; once fixed, read again", async () => {
      const output = captureOutput();
      const badArn = `arn:aws:secretsmanager:${REGION}:123456789012:secret:prometheus-bad-token-XyZ789`;
      const badParameter = "/team-a/prometheus/bad-basic";
      const cases = [
        {
          auth: "bearer",
          source: badArn,
          value: `${TOKEN}\u0000x`,
          origin: `Secrets Manager secret ${badArn}`,
        },
        {
          auth: "bearer",
          source: badArn,
          value: `${TOKEN}\u20ac`,
          origin: `Secrets Manager secret ${badArn}`,
        },
        {
          auth: "basic",
          source: `ssm:${badParameter}`,
          value: JSON.stringify({ username: USER, password: `${PASSWORD}\u0007` }),
          origin: `SSM parameter ${badParameter}`,
        },
      ];
      for (const { auth, source, value, origin } of cases) {
        secrets.set(source.replace(/^ssm:/, ""), value);
        const proxy = auth === "bearer" ? bearer : basic;
        const handler = plain(proxy.url, {
          PROMETHEUS_AUTH: auth,
          PROMETHEUS_SECRET: source,
          ...(auth === "basic" ? { PROMETHEUS_HEADERS: "X-Scope-OrgID: team-a" } : {}),
        });
        const sent = proxy.seen.length;
        const result = await query(handler);
        expect(result.isError).toBe(true);
        const said = result.content[0]?.text ?? "";
        const what = auth === "bearer" ? "bearer token" : "basic-auth secret";
        expect(
          said.startsWith(`Error executing tool ExecuteQuery: The ${what} in the ${origin} `),
          said,
        ).toBe(true);
        expect(said).toMatch(/; nothing was sent\. Fix the secret's value\.$/);
        expect(said).not.toMatch(/Could not reach|attempts/);
        expect(proxy.seen.length).toBe(sent);
        for (const secret of SECRETS) expect(said).not.toContain(secret);
      }
      expectedToken = TOKEN;
      const log = output.lines();
      // DEBUG was on (the calls' own lines are there), and no attempt was made, so none failed.
      expect(log.some((line) => line.level === "DEBUG")).toBe(true);
      expect(log.filter((line) => line.message === "Prometheus attempt failed")).toEqual([]);
      for (const secret of SECRETS) expect(output.text()).not.toContain(secret);

      // Fixed in Secrets Manager: the same container reads it again and is let in.
      const handler = plain(bearer.url, { PROMETHEUS_AUTH: "bearer", PROMETHEUS_SECRET: badArn });
      expect((await query(handler)).isError).toBe(true);
      const reads = secrets.reads(badArn);
      secrets.set(badArn, TOKEN);
      const fixed = await query(handler);
      expect(fixed.isError, JSON.stringify(fixed)).toBeFalsy();
      expect(secrets.reads(badArn) - reads).toBe(1);
    });
  },
);

describe.skipIf(!prometheusAvailable())("tenants from identity: each JWT caller reads its own tenant", () => {
  let prometheus: RunningPrometheus;
  let proxy: AuthProxy;
  let handler: Handler;
  const context = {
    awsRequestId: "tenant-test",
    functionName: "mcp",
    getRemainingTimeInMillis: () => 29_000,
  };

  beforeAll(async () => {
    prometheus = await startPrometheus();
    proxy = await startAuthProxy(prometheus.url, {
      tenant: { header: "X-Scope-OrgID", allowed: ["team-a", "team-b", "team-c"] },
    });
    handler = makeHandler({
      PROMETHEUS_URL: proxy.url,
      PROMETHEUS_AUTH: "none",
      JWT_ISSUER: "https://issuer.example.com",
      TENANT_CLAIM: "custom:tenant",
      ALLOWED_TENANTS: "team-a, team-b",
    });
  }, 120_000);

  afterAll(async () => {
    await proxy?.close();
    await prometheus?.close();
  });

  /** A tools/call through the HTTP API whose JWT authorizer checked a token with these claims (none: no JWT). */
  async function callAs(
    claims: Record<string, unknown> | undefined,
    headers: Record<string, string> = {},
    target: Handler = handler,
  ) {
    const event = httpEvent("v2", {
      method: "POST",
      path: "/mcp",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: "ExecuteQuery",
          arguments: { query: "test_temperature_celsius", time: "1700000000" },
        },
      }),
    });
    if (claims !== undefined) {
      (event.requestContext as Record<string, unknown>).authorizer = { jwt: { claims, scopes: [] } };
    }
    const result = (await target(event, context)) as { statusCode: number; body: string };
    return {
      status: result.statusCode,
      body: JSON.parse(result.body) as { result?: ToolResult; error?: { message: string } },
    };
  }

  it("the claim's tenant is the header every upstream request carries, whatever the caller sends itself", async () => {
    for (const tenant of ["team-a", "team-b"]) {
      const before = proxy.seen.length;
      // The caller's own X-Scope-OrgID names another tenant: it never reaches Prometheus.
      const { status, body } = await callAs(
        { sub: `user-${tenant}`, "custom:tenant": tenant },
        { "x-scope-orgid": "team-c" },
      );
      expect(status).toBe(200);
      expect(body.result?.isError, JSON.stringify(body)).toBeFalsy();
      const sent = proxy.seen.slice(before).map((headers) => headers["x-scope-orgid"]);
      expect(sent.length).toBeGreaterThan(0);
      expect(new Set(sent)).toStrictEqual(new Set([tenant]));
    }
  });

  it("a caller without the claim (or no JWT at all), or naming a tenant not allowed, is refused 403 before anything is read", async () => {
    const before = proxy.seen.length;
    for (const claims of [{ sub: "no-tenant" }, { sub: "blank", "custom:tenant": " " }, undefined]) {
      const { status, body } = await callAs(claims);
      expect(status).toBe(403);
      expect(body.error?.message).toMatch(/reads each caller's tenant from its token's custom:tenant claim/);
    }
    const other = await callAs({ sub: "intruder", "custom:tenant": "team-c" });
    expect(other.status).toBe(403);
    expect(other.body.error?.message).toBe("Forbidden: tenant team-c is not one this server serves");
    expect(proxy.seen.length).toBe(before);
  });

  // Issue 36: `a|b` is two tenants to a Mimir with tenant federation; no tenant set: any claim was sent.
  it("a claim outside the tenant set is refused 403 before anything is read, and never echoed", async () => {
    const anyTenant = makeHandler({
      PROMETHEUS_URL: proxy.url,
      PROMETHEUS_AUTH: "none",
      JWT_ISSUER: "https://issuer.example.com",
      TENANT_CLAIM: "custom:tenant",
    });
    const before = proxy.seen.length;
    for (const tenant of [
      "team-a|team-b",
      "team-a\u0000",
      "team-\u00e9",
      "team a",
      "a/b",
      "..",
      "x".repeat(129),
    ]) {
      const { status, body } = await callAs({ sub: "odd", "custom:tenant": tenant }, {}, anyTenant);
      expect(status, JSON.stringify(tenant)).toBe(403);
      expect(body.error?.message).toBe(
        "Forbidden: the token's custom:tenant claim is not a tenant this server can use (a tenant is 1 to 128 letters, digits, ., _, : or - (not . or .. alone))",
      );
    }
    expect(proxy.seen.length).toBe(before);
    // The set's edges are tenants: 128 characters, `:` and `.` inside.
    const { status } = await callAs({ sub: "edge", "custom:tenant": "x".repeat(128) }, {}, anyTenant);
    expect(status).toBe(200);
    expect(proxy.seen.at(-1)?.["x-scope-orgid"]).toBe("x".repeat(128));
  });

  it("a direct invocation carries no token: its tool calls read nothing", async () => {
    const before = proxy.seen.length;
    const reply = (await handler(
      {
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "ExecuteQuery", arguments: { query: "up" } },
      },
      context,
    )) as { result: ToolResult };
    expect(reply.result.isError).toBe(true);
    expect(reply.result.content[0]?.text).toMatch(/this call has none .*nothing was read/);
    expect(proxy.seen.length).toBe(before);
  });

  it("configuration: TENANT_CLAIM needs a JWT issuer; the tenant header is not also a fixed header", () => {
    const base = { PROMETHEUS_URL: "http://127.0.0.1:9", PROMETHEUS_AUTH: "none" };
    expect(() => loadConfig({ ...base, TENANT_CLAIM: "custom:tenant" })).toThrow(
      /JWT_ISSUER to be set as well/,
    );
    expect(() =>
      loadConfig({
        ...base,
        TENANT_CLAIM: "custom:tenant",
        JWT_ISSUER: "https://issuer.example.com",
        PROMETHEUS_HEADERS: "X-Scope-OrgID: team-a",
      }),
    ).toThrow(/no x-scope-orgid: with TENANT_CLAIM/);
    expect(() => loadConfig({ ...base, ALLOWED_TENANTS: "a" })).toThrow(/TENANT_CLAIM to be set as well/);
    // A tenant outside the set could never be let in: listing one is a mistake said at start.
    expect(() =>
      loadConfig({
        ...base,
        TENANT_CLAIM: "tenant",
        JWT_ISSUER: "https://i.example.com",
        ALLOWED_TENANTS: "team-a, team-a|team-b",
      }),
    ).toThrow(/ALLOWED_TENANTS="team-a\|team-b" \(expected comma-separated tenants, each 1 to 128 letters/);
    expect(
      loadConfig({
        ...base,
        TENANT_CLAIM: "tenant",
        TENANT_HEADER: "X-Tenant",
        JWT_ISSUER: "https://i.example.com",
      }).tenants,
    ).toStrictEqual({ claim: "tenant", header: "x-tenant", allowed: [] });
  });
});

describe("the suite-wide scan for test credentials (test/support/secretScan.ts, test/support/handler.ts)", () => {
  it("an answer that echoes one fails the test that got it (here: an unknown tool named by a token)", async () => {
    const handler = makeHandler({ PROMETHEUS_URL: "http://127.0.0.1:9", PROMETHEUS_AUTH: "none" });
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: TOKEN, arguments: {} } };
    await expect(postMcp(handler, call)).rejects.toThrow(/An answer holds a test credential \(tok-…\)/);
  });
});

describe("PROMETHEUS_AUTH, PROMETHEUS_SECRET, PROMETHEUS_HEADERS: configuration", () => {
  const base = { PROMETHEUS_URL: "http://127.0.0.1:9" };
  const refusal = (env: Record<string, string>) => {
    try {
      loadConfig({ ...base, ...env });
    } catch (error) {
      return (error as Error).message;
    }
    return "accepted";
  };

  it("basic and bearer need a secret, and only they take one", () => {
    expect(refusal({ PROMETHEUS_AUTH: "bearer" })).toMatch(
      /PROMETHEUS_SECRET \(expected to be set with PROMETHEUS_AUTH=bearer/,
    );
    expect(refusal({ PROMETHEUS_AUTH: "none", PROMETHEUS_SECRET: "x" })).toMatch(
      /to be unset with PROMETHEUS_AUTH=none/,
    );
    expect(
      refusal({
        PROMETHEUS_AUTH: "basic",
        PROMETHEUS_URL: "http://u:p@127.0.0.1:9",
        PROMETHEUS_SECRET: "ssm:/a",
      }),
    ).toMatch(/no user:password@ with PROMETHEUS_AUTH=basic/);
  });

  it("in Lambda the secret is a Secrets Manager ARN or an SSM parameter, never the value, which no message repeats", () => {
    const message = refusal({
      PROMETHEUS_AUTH: "bearer",
      PROMETHEUS_SECRET: TOKEN,
      AWS_LAMBDA_FUNCTION_NAME: "mcp",
    });
    expect(message).toMatch(/a Secrets Manager secret ARN or ssm:\/parameter in Lambda/);
    expect(message).not.toContain(TOKEN);
    expect(
      refusal({
        PROMETHEUS_AUTH: "bearer",
        PROMETHEUS_SECRET: "arn:aws:secretsmanager:bad",
        AWS_LAMBDA_FUNCTION_NAME: "mcp",
      }),
    ).toMatch(/expected a Secrets Manager secret ARN/);
    expect(refusal({ PROMETHEUS_AUTH: "bearer", PROMETHEUS_SECRET: "ssm:no-slash" })).toMatch(
      /ssm: followed by a parameter/,
    );
    expect(
      loadConfig({
        ...base,
        PROMETHEUS_AUTH: "bearer",
        PROMETHEUS_SECRET: `ssm:arn:aws:ssm:eu-west-1:123456789012:parameter${PARAMETER}`,
      }).prometheusSecret,
    ).toMatchObject({ kind: "ssm", region: "eu-west-1" });
  });

  it("where no Lambda runs the value itself is accepted, with a warning that does not repeat it", () => {
    const config = loadConfig({ ...base, PROMETHEUS_AUTH: "bearer", PROMETHEUS_SECRET: TOKEN });
    expect(config.prometheusSecret).toStrictEqual({ kind: "literal", value: TOKEN });
    const warnings = configWarnings(config, {});
    expect(warnings.join("\n")).toMatch(/PROMETHEUS_SECRET holds the credentials themselves/);
    expect(warnings.join("\n")).not.toContain(TOKEN);
  });

  it("credentials given as the value itself that no header can carry are refused at start, naming the setting, never the value", () => {
    const cases: [string, string, RegExp][] = [
      ["bearer", `${TOKEN}\u0000x`, /is not a bearer token: RFC 6750/],
      ["bearer", `${TOKEN}\u20ac`, /is not a bearer token: RFC 6750/],
      ["bearer", `${TOKEN} ${ROTATED}`, /is not a bearer token: RFC 6750/],
      ["basic", `${USER}:${PASSWORD}\u0007`, /holds a control character \(RFC 7617/],
      ["basic", PASSWORD, /is neither user:password nor JSON/],
    ];
    for (const [auth, value, problem] of cases) {
      const message = refusal({ PROMETHEUS_AUTH: auth, PROMETHEUS_SECRET: value });
      expect(message).toMatch(
        /^Invalid configuration: PROMETHEUS_SECRET \(expected credentials an HTTP header can carry; the value given /,
      );
      expect(message).toMatch(problem);
      for (const secret of SECRETS) expect(message).not.toContain(secret);
      const backend = refusal({
        PROMETHEUS_URL: "",
        BACKENDS: JSON.stringify({ a: { url: "http://p", auth, secret: value } }),
      });
      expect(backend).toMatch(
        /backend "a" "secret" as credentials an HTTP header can carry; the value given /,
      );
      for (const secret of SECRETS) expect(backend).not.toContain(secret);
    }
    // RFC 6750's whole b64token is a token: `=` at its end only.
    expect(refusal({ PROMETHEUS_AUTH: "bearer", PROMETHEUS_SECRET: "aZ09-._~+/==" })).toBe("accepted");
    expect(refusal({ PROMETHEUS_AUTH: "bearer", PROMETHEUS_SECRET: "a=b" })).toMatch(/is not a bearer token/);
  });

  it("headers as lines or JSON; credentials, our own headers and malformed ones refused by name", () => {
    expect(
      loadConfig({ ...base, PROMETHEUS_HEADERS: "X-Scope-OrgID: team-a\nX-Extra:  1 " }).prometheusHeaders,
    ).toStrictEqual({
      "x-scope-orgid": "team-a",
      "x-extra": "1",
    });
    expect(
      loadConfig({ ...base, PROMETHEUS_HEADERS: '{"X-Scope-OrgID":"t"}' }).prometheusHeaders,
    ).toStrictEqual({
      "x-scope-orgid": "t",
    });
    const authorization = refusal({ PROMETHEUS_HEADERS: `Authorization: Bearer ${TOKEN}` });
    expect(authorization).toMatch(/headers other than Authorization .*PROMETHEUS_SECRET/);
    expect(authorization).not.toContain(TOKEN);
    expect(refusal({ PROMETHEUS_HEADERS: "X-Amz-Date: 1" })).toMatch(/headers other than X-Amz-Date/);
    expect(refusal({ PROMETHEUS_HEADERS: "no colon here" })).toMatch(/one "Name: value" per line/);
    expect(refusal({ PROMETHEUS_HEADERS: '{"a": 1}' })).toMatch(/a's value as a JSON string/);
    expect(refusal({ PROMETHEUS_HEADERS: "X-A: 1\nx-a: 2" })).toMatch(/x-a once/);
  });
});
