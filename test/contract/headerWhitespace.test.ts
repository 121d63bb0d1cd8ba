import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fc, test } from "@fast-check/vitest";
import { beforeAll, describe, expect, it } from "vitest";
import type { HttpRequest } from "../../src/http/event.js";
import { trimOws } from "../../src/http/fieldValue.js";
import { refusePostHeaders } from "../../src/http/middleware/contentHeaders.js";
import { refuseForeignOrigin } from "../../src/http/middleware/origin.js";
import { headerValue, protocolVersionHeader } from "../../src/protocol/mcpHeaders.js";
import { bundleForNode } from "../support/bundle.js";
import { runOk } from "../support/childProcess.js";
import { EVENT_FORMATS } from "../support/events.js";
import { callHttp, type Handler, JSON_HEADERS, makeHandler } from "../support/handler.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

// RFC 9110 §5.5: the only whitespace around a field value is OWS, spaces and horizontal tabs. A no-break
// space, a byte-order mark or any other Unicode space JavaScript's trim() removes is part of the value,
// and refused wherever such a value is refused: the 2026-07-28 headers, MCP-Protocol-Version on the
// legacy path, Content-Type, Accept, Host.

const MODERN = "2026-07-28";
/** Whitespace `String.prototype.trim` removes and RFC 9110 does not: NBSP, BOM, line separator, ideographic space, vertical tab. */
const NOT_OWS = ["\u00a0", "\ufeff", "\u2028", "\u3000", "\u000b"];

const envelope = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
};

function modernCall(name = "GetServerInfo") {
  return {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name, arguments: {}, _meta: envelope },
  };
}

const MODERN_HEADERS = {
  ...JSON_HEADERS,
  "mcp-protocol-version": MODERN,
  "mcp-method": "tools/call",
  "mcp-name": "GetServerInfo",
};

const legacyPing = { jsonrpc: "2.0", id: 7, method: "ping" };

let handler: Handler;
beforeAll(() => {
  handler = makeHandler({ PROMETHEUS_URL: "http://127.0.0.1:1", PROMETHEUS_AUTH: "none" });
});

describe.each(EVENT_FORMATS)(
  "header values around which only spaces and tabs are trimmed (%s events)",
  (format) => {
    const post = async (body: unknown, headers: Record<string, string>) => {
      const result = await callHttp(
        handler,
        { method: "POST", path: "/mcp", headers, body: JSON.stringify(body) },
        format,
      );
      return { status: result.statusCode, json: result.body === "" ? undefined : JSON.parse(result.body) };
    };

    it("2026-07-28: spaces and tabs around MCP-Protocol-Version, Mcp-Method and Mcp-Name are still accepted", async () => {
      const result = await post(modernCall(), {
        ...MODERN_HEADERS,
        "mcp-protocol-version": ` \t${MODERN}\t `,
        "mcp-method": "\ttools/call ",
        "mcp-name": "  GetServerInfo\t",
      });
      expect(result.status).toBe(200);
      expect(result.json.result.structuredContent).toMatchObject({ service_name: "aps" });
    });

    it.each(NOT_OWS.map((space) => [JSON.stringify(space), space]))(
      "2026-07-28: %s before or after a standard header's value is 400 -32020, as any character a header may not carry",
      async (_shown, space) => {
        for (const name of ["mcp-protocol-version", "mcp-method", "mcp-name"] as const) {
          for (const value of [`${space}${MODERN_HEADERS[name]}`, `${MODERN_HEADERS[name]}${space}`]) {
            const result = await post(modernCall(), { ...MODERN_HEADERS, [name]: value });
            expect(result.status, `${name}: ${JSON.stringify(value)}`).toBe(400);
            expect(result.json.error.code, `${name}: ${JSON.stringify(value)}`).toBe(-32020);
          }
        }
      },
    );

    it("the reported case: '\\u00a0 2026-07-28' is not the version, with a 2026-07-28 body or a legacy one", async () => {
      const modern = await post(modernCall(), {
        ...MODERN_HEADERS,
        "mcp-protocol-version": `\u00a0 ${MODERN}`,
      });
      expect(modern.status).toBe(400);
      expect(modern.json.error).toMatchObject({ code: -32020 });
      expect(modern.json.error.message).toMatch(
        /MCP-Protocol-Version header has characters a header may not carry/,
      );

      // A legacy body: the header names no version served, so it is refused as any unknown version is.
      for (const version of [`\u00a0 ${MODERN}`, `\ufeff${MODERN}`, "2025-06-18\u00a0", "\ufeff2025-06-18"]) {
        const legacy = await post(legacyPing, { ...JSON_HEADERS, "mcp-protocol-version": version });
        expect(legacy.status, JSON.stringify(version)).toBe(400);
        expect(legacy.json.error.message, JSON.stringify(version)).toMatch(
          /^Bad Request: unsupported MCP-Protocol-Version/,
        );
      }
      const spaced = await post(legacyPing, { ...JSON_HEADERS, "mcp-protocol-version": " 2025-06-18\t" });
      expect(spaced).toMatchObject({ status: 200, json: { id: 7, result: {} } });
    });

    it("Content-Type and Accept: spaces and tabs are trimmed, a no-break space or BOM is part of the media type", async () => {
      const ok = await post(legacyPing, {
        "content-type": " application/json\t",
        accept: "\tapplication/json ",
      });
      expect(ok.status).toBe(200);
      for (const space of ["\u00a0", "\ufeff"]) {
        const contentType = await post(legacyPing, {
          ...JSON_HEADERS,
          "content-type": `application/json${space}`,
        });
        expect(contentType.status).toBe(415);
        const accept = await post(legacyPing, { ...JSON_HEADERS, accept: `${space}application/json` });
        expect(accept.status).toBe(406);
      }
    });
  },
);

describe("the rules, read directly", () => {
  const request = (headers: Record<string, string>): HttpRequest =>
    ({
      kind: "http",
      method: "POST",
      path: "/mcp",
      headers,
      body: "",
      bodyBytes: 0,
      requestId: undefined,
      principal: undefined,
    }) as HttpRequest;
  const offline = { maxBodyBytes: 1_000_000, allowedOrigins: [], checkHost: true };

  it("Host (checked under serverless offline): ' localhost\\t' is local, '\\u00a0localhost' is not", () => {
    expect(refuseForeignOrigin(request({ host: " localhost:3000\t" }), offline)).toBeUndefined();
    expect(refuseForeignOrigin(request({ host: "\u00a0localhost:3000" }), offline)).toMatchObject({
      status: 403,
    });
    expect(refuseForeignOrigin(request({ host: "localhost\ufeff" }), offline)).toMatchObject({ status: 403 });
  });

  it("an MCP-Protocol-Version of only a no-break space is a value (refused), one of only spaces and tabs is none", () => {
    expect(protocolVersionHeader(request({ "mcp-protocol-version": " \t " }))).toBeUndefined();
    expect(protocolVersionHeader(request({ "mcp-protocol-version": "\u00a0" }))).toBe("\u00a0");
    expect(refusePostHeaders(request({ "content-type": "\u00a0" }))).toMatchObject({ status: 415 });
    expect(refusePostHeaders(request({ "content-type": " \t" }))).toBeUndefined();
  });

  it("headerValue keeps a no-break space or BOM, so the value is refused", () => {
    expect(headerValue(` \t${MODERN}\t `, false)).toBe(MODERN);
    expect(headerValue(`\u00a0${MODERN}`, false)).toBeUndefined();
    expect(headerValue(`${MODERN}\ufeff`, false)).toBeUndefined();
  });

  test.prop([
    fc.string({ unit: "binary", maxLength: 12 }),
    fc.stringMatching(/^[ \t\u00a0\ufeff\u2028\u3000]{0,4}$/),
  ])("trimOws removes exactly the spaces and tabs at either end", (middle, around) => {
    const value = `${around}${middle}${around}`;
    expect(trimOws(value)).toBe(value.replace(/^[ \t]+/, "").replace(/[ \t]+$/, ""));
  });

  it("trimOws takes linear time on a long run of spaces before other text", async () => {
    // A trim that goes back over the run for each of its spaces (a regular expression's `[ \t]+$`) takes
    // time in the run's square: hours for 2,000,000 spaces, where one pass takes milliseconds. In a child
    // process, so that such a trim is ended at the bound, which is generous, not a figure.
    const dir = await mkdtemp(join(tmpdir(), "trim-ows-"));
    try {
      await bundleForNode(join(ROOT, "src/http/fieldValue.ts"), join(dir, "fieldValue.mjs"));
      const child = `
        import { trimOws } from "./fieldValue.mjs";
        const value = \`\${" ".repeat(2_000_000)}x\${" \\t".repeat(1_000_000)}y\`;
        process.stdout.write(String(trimOws(value) === value.slice(2_000_000)));
      `;
      const run = await runOk(process.execPath, ["--input-type=module", "-e", child], {
        cwd: dir,
        env: { ...process.env, NODE_OPTIONS: "" },
        timeoutMs: 60_000,
      });
      expect(run.stdout).toBe("true");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
