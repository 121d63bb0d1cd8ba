import type { HttpRequest } from "../http/event.js";
import { type HttpResponse, jsonResponse } from "../http/responses.js";
import { prefixBeforeWellKnown } from "../http/route.js";

/** How callers sign in when the API's authorizer checks JWTs (`auth=jwt`). */
export interface OAuthSettings {
  /** The authorization server that issues the tokens (the JWT authorizer's issuer, exactly). */
  issuer: string;
  /** Scopes a client should ask for; empty: none advertised. */
  scopes: readonly string[];
}

const LOOPBACK_HOST = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])(:\d+)?$/;
/** Clients may cache it: it changes only with a deployment. */
const CACHE_CONTROL = "public, max-age=3600";

/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) for `/mcp`, public, at
 * `/.well-known/oauth-protected-resource` and `/.well-known/oauth-protected-resource/mcp`. MCP clients
 * fetch it after a 401 to learn where to sign in: API Gateway's JWT authorizer answers 401 without the
 * `WWW-Authenticate: Bearer resource_metadata=…` that would point there, so clients probe both URLs.
 * Without JWT settings there is nothing to announce: 404, as for any unknown path.
 */
export function handleResourceMetadata(request: HttpRequest, oauth: OAuthSettings | undefined): HttpResponse {
  if (oauth === undefined || request.method !== "GET") return jsonResponse(404, { error: "Not found" }, {});
  const host = request.headers.host ?? "";
  const scheme = LOOPBACK_HOST.test(host) ? "http" : "https";
  const metadata = {
    resource: `${scheme}://${host}${prefixBeforeWellKnown(request.path)}/mcp`,
    authorization_servers: [oauth.issuer],
    ...(oauth.scopes.length > 0 ? { scopes_supported: oauth.scopes } : {}),
    bearer_methods_supported: ["header"],
    resource_name: "Amazon Managed Prometheus (MCP)",
  };
  return jsonResponse(200, metadata, { "Access-Control-Allow-Origin": "*", "Cache-Control": CACHE_CONTROL });
}
