// The scopes every /mcp route requires under auth=jwt (serverless.yml, custom.auth.jwt.authorizer.scopes,
// which the framework turns into each route's AuthorizationScopes): the jwtScopes parameter, split as
// the function splits JWT_SCOPES (src/config/schema.ts: on white space and commas, duplicates dropped), so the
// authorizer requires exactly the scopes the function advertises (scopes_supported) and checks itself.
// No scopes: null, which leaves the routes without AuthorizationScopes (any valid token passes).

module.exports = {
  scopes: async ({ resolveVariable }) => {
    const value = await resolveVariable("param:jwtScopes");
    const words = (Array.isArray(value) ? value.join(" ") : value == null ? "" : String(value))
      .split(/[\s,]+/)
      .filter((scope) => scope !== "");
    return words.length === 0 ? null : [...new Set(words)];
  },
};
