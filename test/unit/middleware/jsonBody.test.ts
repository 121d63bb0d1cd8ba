import { describe, expect, it } from "vitest";
import { jsonBody } from "../../../src/http/middleware/jsonBody.js";
import { edgeRequest, passedWith, throughEdge } from "../../support/edgeChain.js";

describe("the JSON body middleware", () => {
  it("parses a POST's body once for the route, and refuses nothing", async () => {
    const batch = edgeRequest({ body: '[{"jsonrpc":"2.0","id":7,"method":"ping"}]' });
    expect(passedWith(await throughEdge([jsonBody], batch)).body).toEqual({
      json: [{ jsonrpc: "2.0", id: 7, method: "ping" }],
    });
  });

  it("keeps what JSON.parse threw on a body that is not JSON, for the route to answer", async () => {
    const broken = passedWith(await throughEdge([jsonBody], edgeRequest({ body: "{not json" }))).body;
    expect(broken !== undefined && "notJson" in broken && broken.notJson).toBeInstanceOf(SyntaxError);
  });

  it("parses nothing of a request other than a POST", async () => {
    const get = edgeRequest({ method: "GET", body: "{}" });
    expect(passedWith(await throughEdge([jsonBody], get)).body).toBeUndefined();
  });
});
