import { fc, test } from "@fast-check/vitest";
import { beforeAll, describe, expect } from "vitest";
import { EVENT_FORMATS, type EventFormat } from "../support/events.js";
import { callHttp, header, JSON_HEADERS, makeHandler } from "../support/handler.js";

type Handler = Awaited<ReturnType<typeof makeHandler>>;
let handler: Handler;
beforeAll(async () => {
  handler = makeHandler();
});

const segment = fc.stringMatching(/^[A-Za-z0-9_.-]{1,10}$/).filter((s) => s !== "mcp" && s !== "health");
const target = fc.constantFrom("mcp", "health", "other");
const method = fc.constantFrom("GET", "POST", "DELETE", "OPTIONS", "PUT", "PATCH", "HEAD");

function expectedStatus(route: string, httpMethod: string): number {
  if (route === "health") return httpMethod === "GET" ? 200 : 404;
  if (route === "other") return 404;
  if (httpMethod === "POST") return 200;
  if (httpMethod === "OPTIONS") return 204;
  if (httpMethod === "DELETE") return 400; // no Mcp-Session-Id to end
  return 405;
}

describe("routing", () => {
  test.prop(
    [
      fc.constantFrom<EventFormat>(...EVENT_FORMATS),
      method,
      fc.array(segment, { maxLength: 3 }),
      target,
      segment,
      fc.boolean(),
    ],
    { numRuns: 300 },
  )(
    "any event shape, method, stage prefix and trailing slash reaches the contract's route and status",
    async (format, httpMethod, prefix, route, other, trailingSlash) => {
      const last = route === "other" ? other : route;
      const path = `/${[...prefix, last].join("/")}${trailingSlash ? "/" : ""}`;
      const body =
        httpMethod === "POST" ? JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) : undefined;
      const result = await callHttp(
        handler,
        { method: httpMethod, path, headers: JSON_HEADERS, body },
        format,
      );
      const status = expectedStatus(route, httpMethod);
      expect(result.statusCode).toBe(status);
      if (status === 404) expect(JSON.parse(result.body)).toStrictEqual({ error: "Not found" });
      if (status === 405) {
        expect(header(result, "Allow")).toBe("POST, DELETE, OPTIONS");
        expect(JSON.parse(result.body)).toStrictEqual({
          jsonrpc: "2.0",
          id: null,
          error: { code: -32000, message: "Method not allowed" },
        });
      }
      if (status === 200 && route === "health")
        expect(JSON.parse(result.body)).toMatchObject({ status: "healthy" });
      if (status === 200 && route === "mcp")
        expect(JSON.parse(result.body)).toStrictEqual({ jsonrpc: "2.0", id: 1, result: {} });
      if (status === 204) expect(result.body).toBe("");
    },
  );
});
