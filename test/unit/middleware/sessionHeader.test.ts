import { describe, expect, it } from "vitest";
import { isWellFormedSessionId, sessionHeader } from "../../../src/http/middleware/sessionHeader.js";
import { edgeRequest, passedWith, throughEdge } from "../../support/edgeChain.js";

describe("the session header middleware", () => {
  it("decides the session id the client sent, none for an absent or empty header, and refuses nothing", async () => {
    const named = edgeRequest({ headers: { "mcp-session-id": "abc 123" } });
    expect(passedWith(await throughEdge([sessionHeader], named)).sessionId).toBe("abc 123");
    const empty = edgeRequest({ headers: { "mcp-session-id": "" } });
    expect(passedWith(await throughEdge([sessionHeader], empty)).sessionId).toBeUndefined();
    expect(passedWith(await throughEdge([sessionHeader], edgeRequest({}))).sessionId).toBeUndefined();
  });

  it("tells a well-formed id: 1 to 128 visible ASCII characters", () => {
    expect(isWellFormedSessionId("a".repeat(128))).toBe(true);
    expect(isWellFormedSessionId("a".repeat(129))).toBe(false);
    expect(isWellFormedSessionId("abc 123")).toBe(false);
    expect(isWellFormedSessionId("")).toBe(false);
  });
});
