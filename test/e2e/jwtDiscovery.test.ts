import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeServer, listenLoopback } from "../support/net.js";
import { type RunningOffline, startOffline } from "../support/offline.js";

// mcp-remote (the stdio bridge many MCP clients are configured with) against `serverless offline`
// with the JWT settings of a deployment (`auth=jwt`): offline's JWT authorizer answers 401 without a
// token, as API Gateway's does, with no `WWW-Authenticate` pointing at the metadata. The client must
// find the protected resource metadata by itself, and from it the authorization server (a stand-in
// here, which records what it is asked). The test stops at the browser step: nobody signs in.

const MCP_REMOTE = join(
  new URL("../..", import.meta.url).pathname,
  "node_modules",
  "mcp-remote",
  "dist",
  "proxy.js",
);
const AUDIENCE = "mcp-test-client";

interface Seen {
  method: string;
  path: string;
}

/** A stand-in OAuth authorization server: metadata, registration; records every request. */
async function startAuthorizationServer(): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  let issuer = "";
  const server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0] ?? "/";
    seen.push({ method: request.method ?? "", path });
    const json = (status: number, body: unknown) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    if (path === "/.well-known/oauth-authorization-server" || path === "/.well-known/openid-configuration") {
      json(200, {
        issuer,
        authorization_endpoint: `${issuer}/oauth2/authorize`,
        token_endpoint: `${issuer}/oauth2/token`,
        registration_endpoint: `${issuer}/register`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
      });
    } else if (path === "/register" && request.method === "POST") {
      let body = "";
      request.on("data", (chunk) => {
        body += chunk;
      });
      request.on("end", () => {
        const asked = JSON.parse(body || "{}") as Record<string, unknown>;
        json(201, { ...asked, client_id: AUDIENCE, client_id_issued_at: Math.floor(Date.now() / 1000) });
      });
    } else {
      json(404, { error: "not_found" });
    }
  });
  issuer = await listenLoopback(server);
  return { url: issuer, seen, server };
}

describe("mcp-remote finds where to sign in (auth=jwt, serverless offline)", () => {
  let offline: RunningOffline;
  let authorization: Awaited<ReturnType<typeof startAuthorizationServer>>;
  let configDir: string;

  beforeAll(async () => {
    authorization = await startAuthorizationServer();
    configDir = await mkdtemp(join(tmpdir(), "mcp-remote-"));
    offline = await startOffline({ LOG_LEVEL: "INFO", METRICS: "off" }, undefined, 90_000, undefined, [
      "--param=auth=jwt",
      `--param=jwtIssuer=${authorization.url}`,
      `--param=jwtAudience=${AUDIENCE}`,
      "--param=jwtScopes=openid mcp/tools",
    ]);
  }, 120_000);

  afterAll(async () => {
    await offline?.close();
    if (authorization) await closeServer(authorization.server);
    if (configDir) await rm(configDir, { recursive: true, force: true });
  });

  it("after the authorizer's 401 it reads the resource metadata, then the issuer it names", async () => {
    // Without a token the route is closed, as on API Gateway.
    const refused = await fetch(`${offline.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(refused.status).toBe(401);

    const child = spawn(process.execPath, [MCP_REMOTE, `${offline.url}/mcp`, "--debug"], {
      env: { ...process.env, MCP_REMOTE_CONFIG_DIR: configDir, BROWSER: "true", DISPLAY: "" },
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    let said = "";
    child.stdout.on("data", (chunk) => {
      said += chunk;
    });
    child.stderr.on("data", (chunk) => {
      said += chunk;
    });
    try {
      const deadline = Date.now() + 60_000;
      const askedIssuer = () =>
        authorization.seen.some((request) => request.path.startsWith("/.well-known/"));
      while (!askedIssuer() && Date.now() < deadline && child.exitCode === null) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      // Give it a moment to go on to registration, then stop it: the next step is a person in a browser.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
    } finally {
      if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    }

    const fetchedFromUs = [
      ...offline.output().matchAll(/"path":"(\/\.well-known\/[^"]*)","status":(\d+)/g),
    ].map(([, path, status]) => `${path} → ${status}`);
    console.log(
      `mcp-remote fetched from the function: ${fetchedFromUs.join(", ") || "nothing"}; ` +
        `from the authorization server: ${authorization.seen.map((r) => `${r.method} ${r.path}`).join(", ")}`,
    );
    expect(fetchedFromUs, said.slice(-3_000)).toContain("/.well-known/oauth-protected-resource/mcp → 200");
    expect(
      authorization.seen.some((request) => request.path.startsWith("/.well-known/")),
      said.slice(-3_000),
    ).toBe(true);
  }, 120_000);
});
