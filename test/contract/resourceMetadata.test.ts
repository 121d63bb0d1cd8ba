import { describe, expect, it } from "vitest";
import { EVENT_FORMATS } from "../helpers/events.js";
import { callHttp, header, makeHandler } from "../helpers/handler.js";

const ISSUER = "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_AbCdEfGhI";
const JWT = { JWT_ISSUER: ISSUER, JWT_SCOPES: "openid mcp/tools" };
const HOST = "abc123.execute-api.us-east-1.amazonaws.com";
const PATHS = ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"];

describe("OAuth protected resource metadata (RFC 9728), JWT mode", () => {
  for (const format of EVENT_FORMATS) {
    for (const path of PATHS) {
      it(`GET ${path} (${format} event) names /mcp, the issuer, the scopes and header bearer tokens`, async () => {
        const handler = makeHandler(JWT);
        const result = await callHttp(handler, { method: "GET", path, headers: { host: HOST } }, format);
        expect(result.statusCode).toBe(200);
        expect(header(result, "Content-Type")).toBe("application/json");
        expect(header(result, "Access-Control-Allow-Origin")).toBe("*");
        expect(JSON.parse(result.body)).toStrictEqual({
          resource: `https://${HOST}/mcp`,
          authorization_servers: [ISSUER],
          scopes_supported: ["openid", "mcp/tools"],
          bearer_methods_supported: ["header"],
          resource_name: "Amazon Managed Prometheus (MCP)",
        });
      });
    }
  }

  it("a REST stage prefix is part of the resource; a local server's resource is http", async () => {
    const handler = makeHandler({ JWT_ISSUER: ISSUER });
    const staged = await callHttp(
      handler,
      { method: "GET", path: `/prod${PATHS[1]}`, headers: { Host: HOST } },
      "v1",
    );
    expect(JSON.parse(staged.body)).toMatchObject({ resource: `https://${HOST}/prod/mcp` });
    expect(JSON.parse(staged.body).scopes_supported).toBeUndefined();
    const local = await callHttp(handler, {
      method: "GET",
      path: PATHS[0] as string,
      headers: { host: "127.0.0.1:3000" },
    });
    expect(JSON.parse(local.body)).toMatchObject({ resource: "http://127.0.0.1:3000/mcp" });
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
      const result = await callHttp(handler, { method, path: path as string, headers: { host: HOST } });
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
        const result = await callHttp(handler, { method: "GET", path, headers: { host: HOST } }, format);
        expect(result.statusCode, `${format} ${path}`).toBe(404);
      }
    }
  });
});
