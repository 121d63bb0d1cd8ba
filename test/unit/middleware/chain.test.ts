import { describe, expect, it } from "vitest";
import { edgeMiddlewares } from "../../../src/http/middleware/index.js";
import { edgeRequest, passedWith, refusedBy, throughEdge } from "../../support/edgeChain.js";

const settings = {
  maxBodyBytes: 10,
  allowedOrigins: [],
  checkHost: false,
  requiredScopes: ["mcp/invoke"],
  tenantClaim: "org",
  allowedTenants: [],
};
const chain = edgeMiddlewares(settings);
const foreign = { origin: "https://evil.example", "content-type": "text/plain" };

describe("the edge chain (src/http/middleware/index.ts)", () => {
  it("refuses in the contract's order: scopes, tenant, size, origin, then a POST's content headers", async () => {
    const all = edgeRequest({ headers: foreign, body: "x".repeat(11) }, { tokenScopes: [], claims: {} });
    const status = async (request: ReturnType<typeof edgeRequest>) =>
      refusedBy(await throughEdge(chain, request)).status;
    expect(refusedBy(await throughEdge(chain, all)).body.headers["WWW-Authenticate"]).toBeDefined();
    const scoped = { tokenScopes: ["mcp/invoke"] };
    expect(
      JSON.parse(refusedBy(await throughEdge(chain, { ...all, ...scoped })).body.body).error.message,
    ).toMatch(/org claim/);
    const tenanted = { ...scoped, claims: { org: "a" } };
    expect(await status({ ...all, ...tenanted })).toBe(413);
    expect(await status({ ...all, ...tenanted, body: "", bodyBytes: 0 })).toBe(403);
    const local = { ...all, ...tenanted, body: "", bodyBytes: 0, headers: { "content-type": "text/plain" } };
    expect(await status(local)).toBe(415);
  });

  it("answers a preflight after the origin rule, before the content headers; a foreign preflight is 403", async () => {
    const preflight = edgeRequest({ method: "OPTIONS", headers: { "content-type": "text/plain" } });
    expect(refusedBy(await throughEdge(chain, preflight)).status).toBe(204);
    const foreignPreflight = edgeRequest({ method: "OPTIONS", headers: foreign });
    expect(refusedBy(await throughEdge(chain, foreignPreflight)).status).toBe(403);
  });

  it("gives the route a request that passed, with its CORS headers, session id and tenant decided", async () => {
    const request = edgeRequest(
      { headers: { "mcp-session-id": "s-1", "content-type": "application/json" }, body: "{}" },
      { tokenScopes: ["mcp/invoke"], claims: { org: "team-a" } },
    );
    expect(passedWith(await throughEdge(chain, request))).toEqual({
      cors: expect.objectContaining({ "Access-Control-Allow-Origin": "*" }),
      sessionId: "s-1",
      tenant: "team-a",
      body: { json: {} },
    });
  });
});
