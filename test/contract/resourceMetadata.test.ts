import { describe, expect, it } from "vitest";
import { EVENT_FORMATS, type EventFormat, httpEvent, lambdaContext } from "../support/events.js";
import { callHttp, type HttpResult, header, makeHandler } from "../support/handler.js";

const ISSUER = "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_AbCdEfGhI";
const JWT = { JWT_ISSUER: ISSUER, JWT_SCOPES: "openid mcp/tools" };
const DOMAIN = "abc123.execute-api.us-east-1.amazonaws.com";
const FUNCTION_URL_DOMAIN = "abc123.lambda-url.us-east-1.on.aws";
const PATHS = ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"];
/** What serverless offline puts in requestContext.domainName: a placeholder, not a DNS name. */
const OFFLINE_DOMAIN = "offlineContext_domainName";

type Handler = ReturnType<typeof makeHandler>;

interface MetadataCall {
  path?: string;
  /** The Host header (the caller writes it). */
  host?: string;
  /** requestContext.domainName (the front door writes it); null: none at all. */
  domainName?: string | null;
  /** A REST API's requestContext.path (the stage included), when it differs from `path`. */
  requestContextPath?: string;
  method?: string;
}

/** A GET of the metadata as `format` delivers it, with the domain name and Host given. */
async function getMetadata(
  handler: Handler,
  format: EventFormat,
  call: MetadataCall = {},
): Promise<HttpResult> {
  const path = call.path ?? (PATHS[1] as string);
  const event = httpEvent(format, {
    method: call.method ?? "GET",
    path,
    headers: call.host === undefined ? {} : { Host: call.host },
  });
  const requestContext = event.requestContext as Record<string, unknown>;
  const domainName =
    call.domainName === undefined ? (format === "url" ? FUNCTION_URL_DOMAIN : DOMAIN) : call.domainName;
  if (domainName === null) delete requestContext.domainName;
  else requestContext.domainName = domainName;
  if (call.requestContextPath !== undefined) requestContext.path = call.requestContextPath;
  return (await handler(event, lambdaContext())) as HttpResult;
}

function resourceOf(result: HttpResult): unknown {
  return (JSON.parse(result.body) as { resource?: unknown }).resource;
}

describe("OAuth protected resource metadata (RFC 9728), JWT mode", () => {
  for (const format of EVENT_FORMATS) {
    const domain = format === "url" ? FUNCTION_URL_DOMAIN : DOMAIN;
    for (const path of PATHS) {
      it(`GET ${path} (${format} event) names /mcp at the event's domain name, the issuer, the scopes and header bearer tokens`, async () => {
        const result = await getMetadata(makeHandler(JWT), format, { path, host: domain });
        expect(result.statusCode).toBe(200);
        expect(header(result, "Content-Type")).toBe("application/json");
        expect(header(result, "Access-Control-Allow-Origin")).toBe("*");
        expect(JSON.parse(result.body)).toStrictEqual({
          resource: `https://${domain}/mcp`,
          authorization_servers: [ISSUER],
          scopes_supported: ["openid", "mcp/tools"],
          bearer_methods_supported: ["header"],
          resource_name: "Amazon Managed Prometheus (MCP)",
        });
      });
    }
  }

  // The finding: `Host: attacker.example` was advertised as the resource, in an answer any shared
  // cache could keep for an hour and hand to everyone.
  it("a forged Host header changes nothing: the resource is the front door's domain name, in every format", async () => {
    const handler = makeHandler(JWT);
    for (const format of EVENT_FORMATS) {
      for (const path of PATHS) {
        for (const host of ["attacker.example", "attacker.example:443", "localhost:3000", "127.0.0.1"]) {
          const result = await getMetadata(handler, format, { path, host });
          expect(result.statusCode, `${format} ${path} ${host}`).toBe(200);
          const domain = format === "url" ? FUNCTION_URL_DOMAIN : DOMAIN;
          expect(resourceOf(result), `${format} ${path} ${host}`).toBe(`https://${domain}/mcp`);
          expect(result.body).not.toContain("attacker");
        }
      }
    }
  });

  it("is cached briefly, and keyed on the Host by any cache that keys on something else", async () => {
    for (const format of EVENT_FORMATS) {
      const result = await getMetadata(makeHandler(JWT), format, { host: "attacker.example" });
      expect(header(result, "Cache-Control"), format).toBe("public, max-age=300");
      expect(header(result, "Vary"), format).toBe("Host");
    }
  });

  it("the domain name is lower-cased; the stage or base path before /.well-known/ is part of the resource", async () => {
    const handler = makeHandler({ JWT_ISSUER: ISSUER });
    const upper = await getMetadata(handler, "v2", {
      domainName: "ABC123.Execute-API.us-east-1.amazonaws.com",
    });
    expect(resourceOf(upper)).toBe(`https://${DOMAIN}/mcp`);
    expect(JSON.parse(upper.body).scopes_supported).toBeUndefined();
    // An HTTP API's named stage is in rawPath.
    const staged = await getMetadata(handler, "v2", { path: `/prod${PATHS[1]}` });
    expect(resourceOf(staged)).toBe(`https://${DOMAIN}/prod/mcp`);
    // A REST API's `path` leaves the stage out; requestContext.path has it (or a custom domain's base path).
    const rest = await getMetadata(handler, "v1", { path: PATHS[0], requestContextPath: `/prod${PATHS[0]}` });
    expect(resourceOf(rest)).toBe(`https://${DOMAIN}/prod/mcp`);
    const basePath = await getMetadata(handler, "v1", {
      path: PATHS[1],
      domainName: "mcp.example.com",
      requestContextPath: `/v1/api${PATHS[1]}`,
    });
    expect(resourceOf(basePath)).toBe("https://mcp.example.com/v1/api/mcp");
  });

  it("a path before /.well-known/ that no stage or base path could be is 404", async () => {
    const handler = makeHandler(JWT);
    for (const prefix of ["/%2e%2e", "/a//b", "/..", "/a b", `/${"x".repeat(129)}`]) {
      const result = await getMetadata(handler, "url", { path: `${prefix}${PATHS[0]}` });
      expect(result.statusCode, prefix).toBe(404);
      expect(JSON.parse(result.body), prefix).toStrictEqual({ error: "Not found" });
    }
  });

  it("without a domain name from the front door (serverless offline, a hand-made event) only a loopback Host counts, as http", async () => {
    const handler = makeHandler(JWT);
    for (const domainName of [null, OFFLINE_DOMAIN]) {
      for (const host of ["127.0.0.1:3000", "localhost:3000", "LOCALHOST", "[::1]:8080"]) {
        const result = await getMetadata(handler, "v2", { domainName, host });
        expect(result.statusCode, `${domainName} ${host}`).toBe(200);
        expect(resourceOf(result), `${domainName} ${host}`).toBe(`http://${host.toLowerCase()}/mcp`);
      }
    }
    const local = await getMetadata(handler, "v1", {
      domainName: null,
      host: "127.0.0.1:3000",
      path: `/dev${PATHS[0]}`,
    });
    expect(resourceOf(local)).toBe("http://127.0.0.1:3000/dev/mcp");
  });

  it("without a domain name from the front door, any other Host is 404: nothing is announced", async () => {
    const handler = makeHandler(JWT);
    for (const format of EVENT_FORMATS) {
      for (const domainName of [
        null,
        "",
        OFFLINE_DOMAIN,
        "evil.example/x",
        "evil.example:443",
        "a b",
        `${"a".repeat(254)}`,
      ]) {
        for (const host of [
          undefined,
          "attacker.example",
          "127.0.0.1.attacker.example",
          "localhost.attacker.example:80",
          "localhost:3000@attacker.example",
        ]) {
          const result = await getMetadata(handler, format, { domainName, host });
          expect(result.statusCode, `${format} ${domainName} ${host}`).toBe(404);
          expect(JSON.parse(result.body)).toStrictEqual({ error: "Not found" });
        }
      }
    }
  });

  it("other methods and other well-known paths are 404, and never reach the MCP route", async () => {
    const handler = makeHandler(JWT);
    for (const [method, path] of [
      ["POST", PATHS[1]],
      ["DELETE", PATHS[0]],
      ["GET", "/.well-known/oauth-authorization-server"],
      ["GET", "/.well-known/oauth-protected-resource/other/mcp"],
      ["POST", "/.well-known/mcp"],
    ] as const) {
      const result = await callHttp(handler, { method, path: path as string, headers: { host: DOMAIN } });
      expect(result.statusCode, `${method} ${path}`).toBe(404);
      expect(JSON.parse(result.body), `${method} ${path}`).toStrictEqual({ error: "Not found" });
    }
  });
});

describe("without JWT settings (IAM mode)", () => {
  it("there is nothing to announce: 404 at both URLs, in every event format", async () => {
    const handler = makeHandler();
    for (const format of EVENT_FORMATS) {
      for (const path of PATHS) {
        const result = await getMetadata(handler, format, { path, host: DOMAIN });
        expect(result.statusCode, `${format} ${path}`).toBe(404);
      }
    }
  });
});
