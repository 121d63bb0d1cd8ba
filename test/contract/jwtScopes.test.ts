import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { type EventFormat, httpEvent, lambdaContext } from "../support/events.js";
import { type HttpResult, header, JSON_HEADERS, makeHandler } from "../support/handler.js";

// JWT_SCOPES is enforced, not only advertised: API Gateway's JWT authorizer requires one of them on
// every /mcp route (AuthorizationScopes, test/serverless/package.test.ts), and the function refuses a
// request whose authorizer context carries JWT claims with none of them (an API or route set up
// without the scopes). Before, any token with the right issuer and audience got through.

const ISSUER = "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_AbCdEfGhI";
const SCOPED = { JWT_ISSUER: ISSUER, JWT_SCOPES: "mcp:read mcp:query" };
const PING = { jsonrpc: "2.0", id: 1, method: "ping" };
const CLAIMS = { iss: ISSUER, sub: "3f6c2a1e-5b7d-4c9e-8a21-0d4e6f7a8b9c", client_id: "5r0abc123example" };

type Handler = ReturnType<typeof makeHandler>;

/** A request to /mcp whose authorizer context is `authorizer` (none: no authorizer at all). */
async function call(
  handler: Handler,
  authorizer: Record<string, unknown> | undefined,
  { format = "v2", method = "POST" }: { format?: EventFormat; method?: string } = {},
): Promise<HttpResult> {
  const event = httpEvent(format, {
    method,
    path: "/mcp",
    headers: JSON_HEADERS,
    ...(method === "POST" ? { body: JSON.stringify(PING) } : {}),
  });
  if (authorizer !== undefined) (event.requestContext as Record<string, unknown>).authorizer = authorizer;
  return (await handler(event, lambdaContext())) as HttpResult;
}

/** HTTP API's authorizer context for a JWT with these claims (and, as API Gateway may add, scopes). */
const jwt = (claims: Record<string, unknown>, scopes?: unknown) => ({
  jwt: { claims: { ...CLAIMS, ...claims }, ...(scopes === undefined ? {} : { scopes }) },
});

function expectInsufficientScope(result: HttpResult, label: string): void {
  expect(result.statusCode, label).toBe(403);
  expect(header(result, "Content-Type"), label).toBe("application/json");
  expect(header(result, "WWW-Authenticate"), label).toBe(
    'Bearer error="insufficient_scope", scope="mcp:read mcp:query"',
  );
  expect(JSON.parse(result.body), label).toStrictEqual({
    jsonrpc: "2.0",
    id: null,
    error: {
      code: -32600,
      message: "Forbidden: the token has none of the scopes this server requires (mcp:read, mcp:query)",
    },
  });
}

function expectServed(result: HttpResult, label: string): void {
  expect(result.statusCode, label).toBe(200);
  expect(JSON.parse(result.body), label).toStrictEqual({ jsonrpc: "2.0", id: 1, result: {} });
}

describe("JWT_SCOPES set: a JWT must hold one of them", () => {
  for (const pythonCompat of ["false", "true"]) {
    const handler = makeHandler({ ...SCOPED, PYTHON_COMPAT: pythonCompat });

    it(`refuses tokens with none of the scopes: 403, a JSON-RPC error and RFC 6750's challenge (PYTHON_COMPAT=${pythonCompat})`, async () => {
      const refused: [string, Record<string, unknown>][] = [
        ["no scope claim", jwt({})],
        ["other scopes", jwt({ scope: "openid profile" })],
        ["a scope that only starts like one", jwt({ scope: "mcp:read-only mcp:querying" })],
        ["other scopes listed by the authorizer", jwt({ scope: "openid" }, ["openid"])],
        ["an empty scp array", jwt({ scp: [] })],
        ["a scope claim that is not text", jwt({ scope: { "mcp:read": true } })],
      ];
      for (const [label, authorizer] of refused)
        expectInsufficientScope(await call(handler, authorizer), label);
    });

    it(`serves tokens with at least one of them, however the claim carries it (PYTHON_COMPAT=${pythonCompat})`, async () => {
      const served: [string, Record<string, unknown>][] = [
        ["scope, space-separated", jwt({ scope: "openid mcp:query" })],
        ["scp as an array", jwt({ scp: ["profile", "mcp:read"] })],
        ["scp as a string", jwt({ scp: "mcp:read" })],
        ["an array claim as API Gateway flattens it", jwt({ scp: "[profile mcp:query]" })],
        ["the authorizer's scopes list", jwt({}, ["mcp:read"])],
      ];
      for (const [label, authorizer] of served) expectServed(await call(handler, authorizer), label);
    });
  }

  it("every method of /mcp is refused alike (DELETE, GET), before any other rule", async () => {
    const handler = makeHandler(SCOPED);
    for (const method of ["DELETE", "GET"]) {
      expectInsufficientScope(await call(handler, jwt({ scope: "openid" }), { method }), method);
    }
  });

  it("callers without a JWT are not asked for scopes: IAM, a Function URL, no authorizer", async () => {
    const handler = makeHandler(SCOPED);
    const iam = { iam: { userArn: "arn:aws:iam::123456789012:user/alice" } };
    expectServed(await call(handler, iam), "IAM (v2)");
    expectServed(await call(handler, iam, { format: "url" }), "IAM (Function URL)");
    expectServed(await call(handler, undefined), "no authorizer");
    // serverless offline's context for a request without a token: jwt with nothing in it.
    expectServed(await call(handler, { jwt: { claims: undefined, scopes: undefined } }), "offline, no token");
  });

  it("a REST API's Cognito authorizer (requestContext.authorizer.claims) is checked too", async () => {
    const handler = makeHandler(SCOPED);
    expectInsufficientScope(
      await call(handler, { claims: { ...CLAIMS, scope: "openid" } }, { format: "v1" }),
      "v1 without",
    );
    expectServed(
      await call(handler, { claims: { ...CLAIMS, scope: "mcp:read" } }, { format: "v1" }),
      "v1 with",
    );
  });

  it("the sample event events/v2-tools-list-jwt.json (scope mcp/invoke) is served only where mcp/invoke is required", async () => {
    const event = JSON.parse(
      await readFile(new URL("../../events/v2-tools-list-jwt.json", import.meta.url), "utf8"),
    );
    const required = (await makeHandler({ JWT_ISSUER: ISSUER, JWT_SCOPES: "mcp/invoke" })(
      event,
      lambdaContext(),
    )) as HttpResult;
    expect(required.statusCode).toBe(200);
    const other = (await makeHandler(SCOPED)(structuredClone(event), lambdaContext())) as HttpResult;
    expectInsufficientScope(other, "sample event");
  });
});

describe("without JWT_SCOPES nothing changes", () => {
  it("any token is served (the authorizer checked issuer and audience), with or without JWT_ISSUER", async () => {
    for (const env of [{ JWT_ISSUER: ISSUER }, {}] as Record<string, string>[]) {
      const handler = makeHandler(env);
      expectServed(await call(handler, jwt({})), `${JSON.stringify(env)} no scope`);
      expectServed(await call(handler, jwt({ scope: "openid" })), `${JSON.stringify(env)} openid`);
    }
  });
});
