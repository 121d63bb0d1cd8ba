import { describe, expect, it } from "vitest";
import { corsDecision, corsPreflight } from "../../../src/http/middleware/cors.js";
import { CORS_PREFLIGHT_HEADERS } from "../../../src/http/responses.js";
import { edgeRequest, passedWith, refusedBy, throughEdge } from "../../support/edgeChain.js";

const chain = [corsDecision(["https://app.example"]), corsPreflight];

describe("the CORS middlewares", () => {
  it("decide `*` without an Origin, the origin itself when allowed, only Vary when refused", async () => {
    const none = passedWith(await throughEdge(chain, edgeRequest({})));
    expect(none.cors["Access-Control-Allow-Origin"]).toBe("*");
    expect(none.cors["Access-Control-Expose-Headers"]).toContain("Mcp-Session-Id");
    const allowed = passedWith(
      await throughEdge(chain, edgeRequest({ headers: { origin: "https://app.example" } })),
    );
    expect(allowed.cors).toMatchObject({
      "Access-Control-Allow-Origin": "https://app.example",
      Vary: "Origin",
    });
    const local = passedWith(
      await throughEdge(chain, edgeRequest({ headers: { origin: "http://localhost:6274" } })),
    );
    expect(local.cors["Access-Control-Allow-Origin"]).toBe("http://localhost:6274");
    const foreign = passedWith(
      await throughEdge(chain, edgeRequest({ headers: { origin: "https://evil.example" } })),
    );
    expect(foreign.cors).toEqual({ Vary: "Origin" });
  });

  it("answer a preflight 204 with the preflight headers and the decided CORS headers, empty body", async () => {
    const request = edgeRequest({ method: "OPTIONS", headers: { origin: "https://app.example" } });
    const answer = refusedBy(await throughEdge(chain, request));
    expect(answer.status).toBe(204);
    expect(answer.body.body).toBe("");
    expect(answer.body.headers).toEqual({
      "Access-Control-Allow-Origin": "https://app.example",
      "Access-Control-Expose-Headers": expect.stringContaining("Mcp-Session-Id"),
      Vary: "Origin",
      ...CORS_PREFLIGHT_HEADERS,
    });
  });
});
