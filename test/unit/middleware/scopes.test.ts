import { describe, expect, it } from "vitest";
import { corsDecision } from "../../../src/http/middleware/cors.js";
import { scopeRule } from "../../../src/http/middleware/scopes.js";
import { edgeRequest, passedWith, refusedBy, throughEdge } from "../../support/edgeChain.js";

const chain = [corsDecision([]), scopeRule(["mcp/invoke", "mcp/admin"])];

describe("the JWT scopes middleware", () => {
  it("refuses a token holding none of the scopes 403, naming them, with WWW-Authenticate and CORS", async () => {
    const answer = refusedBy(await throughEdge(chain, edgeRequest({}, { tokenScopes: ["openid"] })));
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body.body).error).toEqual({
      code: -32600,
      message: "Forbidden: the token has none of the scopes this server requires (mcp/invoke, mcp/admin)",
    });
    expect(answer.body.headers).toMatchObject({
      "WWW-Authenticate": 'Bearer error="insufficient_scope", scope="mcp/invoke mcp/admin"',
      "Access-Control-Allow-Origin": "*",
    });
  });

  it("leaves scope= out of WWW-Authenticate when a scope cannot stand in it quoted", async () => {
    const quoted = [corsDecision([]), scopeRule(['a"b'])];
    const answer = refusedBy(await throughEdge(quoted, edgeRequest({}, { tokenScopes: [] })));
    expect(answer.body.headers["WWW-Authenticate"]).toBe('Bearer error="insufficient_scope"');
  });

  it("lets through a token with one of them, a caller without a JWT, and everyone when none is required", async () => {
    passedWith(await throughEdge(chain, edgeRequest({}, { tokenScopes: ["openid", "mcp/admin"] })));
    passedWith(await throughEdge(chain, edgeRequest({}, { tokenScopes: undefined })));
    passedWith(await throughEdge([scopeRule([])], edgeRequest({}, { tokenScopes: [] })));
  });
});
