import middy from "@middy/core";
import { describe, expect, it } from "vitest";
import { corsDecision, corsPreflight } from "../../../src/http/middleware/cors.js";
import { edgeEvent } from "../../../src/http/middleware/index.js";
import { CORS_PREFLIGHT_HEADERS, emptyResponse } from "../../../src/http/responses.js";
import { edgeRequest, passedWith, refusedBy, throughEdge } from "../../support/edgeChain.js";
import { lambdaContext } from "../../support/events.js";

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

describe("the CORS decision's after", () => {
  it("adds the decided CORS headers to the route's answer, before the route's own headers", async () => {
    const route = async () => ({
      body: emptyResponse(405, { Allow: "POST, OPTIONS" }),
      status: 405,
      methods: [],
    });
    const request = edgeRequest({ headers: { origin: "https://app.example" } });
    const answer = await middy(route, { timeoutEarlyInMillis: 0 }).use(chain)(
      edgeEvent(request),
      lambdaContext(),
    );
    expect(answer.body.headers).toEqual({
      "Access-Control-Allow-Origin": "https://app.example",
      "Access-Control-Expose-Headers": expect.stringContaining("Mcp-Session-Id"),
      Vary: "Origin",
      Allow: "POST, OPTIONS",
    });
    expect(Object.keys(answer.body.headers).at(-1)).toBe("Allow");
  });
});
