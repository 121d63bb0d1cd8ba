import { describe, expect, it } from "vitest";
import { corsDecision } from "../../../src/http/middleware/cors.js";
import { originRule } from "../../../src/http/middleware/origin.js";
import { edgeRequest, passedWith, refusedBy, throughEdge } from "../../support/edgeChain.js";

const settings = { allowedOrigins: ["https://app.example"], checkHost: false };
const chain = [corsDecision(settings.allowedOrigins), originRule(settings)];

describe("the origin and host middleware", () => {
  it("refuses a foreign origin 403 with a JSON-RPC error naming it, and only Vary as CORS", async () => {
    const answer = refusedBy(
      await throughEdge(chain, edgeRequest({ headers: { origin: "https://evil.example" } })),
    );
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body.body)).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "Forbidden: origin https://evil.example is not allowed" },
    });
    expect(answer.body.headers).toEqual({ Vary: "Origin", "Content-Type": "application/json" });
  });

  it("refuses an origin that is not serialized as browsers send it (a URL parser would read localhost)", async () => {
    // Set past the event reading, which would not let such a header value through.
    const request = { ...edgeRequest({}), headers: { origin: "http://local\nhost" } };
    expect(refusedBy(await throughEdge(chain, request)).status).toBe(403);
  });

  it("checks the Host only where told to (serverless offline): a rebinding name is refused", async () => {
    const request = edgeRequest({ headers: { host: "rebind.example:3000" } });
    passedWith(await throughEdge(chain, request));
    const offline = [originRule({ ...settings, checkHost: true })];
    const answer = refusedBy(await throughEdge(offline, request));
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body.body).error.message).toBe("Forbidden: host is not allowed");
    passedWith(await throughEdge(offline, edgeRequest({ headers: { host: "[::1]:3000" } })));
  });

  it("lets an allowed origin, a local one and a request without Origin through", async () => {
    for (const origin of ["https://app.example", "http://127.0.0.1:8080", undefined]) {
      const headers: Record<string, string> = origin === undefined ? {} : { origin };
      passedWith(await throughEdge(chain, edgeRequest({ headers })));
    }
  });
});
