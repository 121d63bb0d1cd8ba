import { describe, expect, it } from "vitest";
import { contentHeadersRule } from "../../../src/http/middleware/contentHeaders.js";
import { corsDecision } from "../../../src/http/middleware/cors.js";
import { edgeRequest, passedWith, refusedBy, throughEdge } from "../../support/edgeChain.js";

const chain = [corsDecision([]), contentHeadersRule];

describe("the content headers middleware", () => {
  it("refuses a POST whose Content-Type is not JSON 415, naming it", async () => {
    const request = edgeRequest({ headers: { "content-type": "text/plain", accept: "text/html" } });
    const answer = refusedBy(await throughEdge(chain, request));
    expect(answer.status).toBe(415);
    expect(JSON.parse(answer.body.body).error).toEqual({
      code: -32600,
      message: "Unsupported Media Type: Content-Type must be application/json, not text/plain",
    });
    expect(answer.body.headers["Access-Control-Allow-Origin"]).toBe("*");
  });

  it("refuses a POST that accepts no JSON 406 (q=0 admits nothing)", async () => {
    for (const accept of ["text/event-stream", "application/json;q=0"]) {
      const request = edgeRequest({ headers: { "content-type": "application/json", accept } });
      const answer = refusedBy(await throughEdge(chain, request));
      expect(answer.status).toBe(406);
      expect(JSON.parse(answer.body.body).error.message).toBe(
        "Not Acceptable: the client must accept application/json",
      );
    }
  });

  it("lets JSON media types, ranges that admit JSON, absent headers and other methods through", async () => {
    const headers = {
      "content-type": "application/vnd.api+json; charset=utf-8",
      accept: "application/*, text/event-stream",
    };
    passedWith(await throughEdge(chain, edgeRequest({ headers })));
    passedWith(await throughEdge(chain, edgeRequest({})));
    passedWith(
      await throughEdge(chain, edgeRequest({ method: "DELETE", headers: { "content-type": "text/plain" } })),
    );
  });
});
