import { describe, expect, it } from "vitest";
import { bodyLimitRule } from "../../../src/http/middleware/bodyLimit.js";
import { corsDecision } from "../../../src/http/middleware/cors.js";
import { edgeRequest, passedWith, refusedBy, throughEdge } from "../../support/edgeChain.js";

const chain = [corsDecision([]), bodyLimitRule(10)];

describe("the body limit middleware", () => {
  it("refuses a body over MAX_BODY_BYTES 413, naming both sizes, with CORS", async () => {
    const answer = refusedBy(await throughEdge(chain, edgeRequest({ body: "é".repeat(6) })));
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body.body).error).toEqual({
      code: -32600,
      message: "Request body too large: 12 bytes, the limit is 10 bytes (MAX_BODY_BYTES)",
    });
    expect(answer.body.headers["Access-Control-Allow-Origin"]).toBe("*");
  });

  it("lets a body of exactly the limit through, and never refuses a preflight for its size", async () => {
    passedWith(await throughEdge(chain, edgeRequest({ body: "0123456789" })));
    passedWith(await throughEdge(chain, edgeRequest({ method: "OPTIONS", body: "x".repeat(11) })));
  });
});
