import { describe, expect, it } from "vitest";
import { corsDecision } from "../../../src/http/middleware/cors.js";
import { tenantRule } from "../../../src/http/middleware/tenant.js";
import { edgeRequest, passedWith, refusedBy, throughEdge } from "../../support/edgeChain.js";

const chain = [corsDecision([]), tenantRule({ claim: "org", allowed: ["team-a", "42:7"] })];
const withClaims = (claims: Record<string, unknown> | undefined) => edgeRequest({}, { claims });

describe("the tenant middleware", () => {
  it("decides the tenant the token's claim names, trimmed, for everything after it", async () => {
    expect(passedWith(await throughEdge(chain, withClaims({ org: " team-a " }))).tenant).toBe("team-a");
    expect(passedWith(await throughEdge(chain, withClaims({ org: "42:7" }))).tenant).toBe("42:7");
  });

  it("refuses 403 a request without the claim, naming the claim, with CORS", async () => {
    for (const claims of [undefined, {}, { org: "  " }, { org: 42 }]) {
      const answer = refusedBy(await throughEdge(chain, withClaims(claims)));
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.body.body).error).toEqual({
        code: -32600,
        message:
          "Forbidden: this server reads each caller's tenant from its token's org claim, and this request's token has none",
      });
      expect(answer.body.headers["Access-Control-Allow-Origin"]).toBe("*");
    }
  });

  it("refuses a claim outside the tenant set without echoing it, and one outside ALLOWED_TENANTS", async () => {
    const federated = refusedBy(await throughEdge(chain, withClaims({ org: "team-a|team-b" })));
    expect(federated.status).toBe(403);
    expect(federated.body.body).not.toContain("team-b");
    expect(JSON.parse(federated.body.body).error.message).toMatch(
      /^Forbidden: the token's org claim is not a tenant/,
    );
    const other = refusedBy(await throughEdge(chain, withClaims({ org: "team-c" })));
    expect(JSON.parse(other.body.body).error.message).toBe(
      "Forbidden: tenant team-c is not one this server serves",
    );
  });

  it("decides no tenant without TENANT_CLAIM, and neither refuses nor decides for a preflight", async () => {
    const open = [tenantRule({ claim: undefined, allowed: [] })];
    expect(passedWith(await throughEdge(open, withClaims({ org: "team-a" }))).tenant).toBeUndefined();
    const preflight = edgeRequest({ method: "OPTIONS" });
    expect(passedWith(await throughEdge(chain, preflight)).tenant).toBeUndefined();
  });
});
