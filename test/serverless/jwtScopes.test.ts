import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/index.js";

// scripts/jwt-scopes.cjs gives the /mcp routes their AuthorizationScopes (serverless.yml,
// custom.auth.jwt.authorizer.scopes) from the jwtScopes parameter, which the function also gets as
// JWT_SCOPES: both must read the same list, or the authorizer would require scopes the metadata does
// not advertise. The package test checks one case end to end; these check the splitting without a
// package run.

const require = createRequire(import.meta.url);
const script = require("../../scripts/jwt-scopes.cjs") as {
  scopes: (context: { resolveVariable: (name: string) => Promise<unknown> }) => Promise<string[] | null>;
};

const resolveTo = (value: unknown) => ({
  resolveVariable: async (name: string) => {
    expect(name).toBe("param:jwtScopes");
    return value;
  },
});

describe("scripts/jwt-scopes.cjs", () => {
  it("splits jwtScopes as src/config.ts splits JWT_SCOPES", async () => {
    for (const value of [
      "mcp:read mcp:query",
      "openid mcp/tools",
      "  mcp:read,mcp:query  mcp:read ",
      "a\tb\nc,,d",
      "https://api.example.com/mcp.read",
    ]) {
      const config = loadConfig({ JWT_ISSUER: "https://issuer.example.com", JWT_SCOPES: value });
      expect(await script.scopes(resolveTo(value)), value).toStrictEqual(config.oauth?.scopes);
    }
  });

  it("no scopes: null, so the routes get no AuthorizationScopes", async () => {
    for (const value of ["", "  ", " , ", undefined, null]) {
      expect(await script.scopes(resolveTo(value)), String(value)).toBeNull();
    }
  });
});
