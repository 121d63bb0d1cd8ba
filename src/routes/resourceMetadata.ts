import type { HttpRequest } from "../http/event.js";
import { type HttpResponse, jsonResponse } from "../http/responses.js";
import { prefixBeforeWellKnown } from "../http/route.js";

/** How callers sign in when the API's authorizer checks JWTs (`auth=jwt`). */
export interface OAuthSettings {
  /** The authorization server that issues the tokens (the JWT authorizer's issuer, exactly). */
  issuer: string;
  /** Scopes a client should ask for, and the ones every /mcp route requires (one of); empty: none. */
  scopes: readonly string[];
}

/** A DNS name: letters, digits and hyphens in labels of 1 to 63, 253 characters at most; no port. */
const DNS_NAME =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
/** This machine, with an optional port: `serverless offline`'s Host (`npm start`). */
const LOOPBACK_HOST = /^(?:localhost|127(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}|\[::1\])(?::\d{1,5})?$/;
/** A stage or base path segment (API Gateway allows no other characters in either). */
const PATH_SEGMENT = /^[A-Za-z0-9_~$!'()*+.-]{1,128}$/;
/**
 * Shared caches may keep it, but not for long: it changes with a deployment (a new issuer or scopes
 * should reach clients within minutes), and a client reads it once per sign-in. `Vary: Host`: should a
 * cache key on something other than the Host it forwards, it still keeps one answer per Host.
 */
const CACHE_HEADERS = { "Cache-Control": "public, max-age=300", Vary: "Host" };
const NOT_FOUND = { error: "Not found" };

/**
 * The origin (`https://name`) clients reach the function at, from what the front door says, never
 * from the caller's Host header: API Gateway and Function URLs put the name that was called (the
 * execute-api name, a custom domain, the Function URL's name) in `requestContext.domainName`. An event
 * without a DNS name there is not from either: `serverless offline` (whose domainName is a placeholder)
 * or a hand-made event. Only then does the Host header count, and only a loopback one (`http://`,
 * with its port): a name on this machine cannot send a client anywhere else. Otherwise undefined.
 */
function originOf(request: HttpRequest): string | undefined {
  const domain = request.domainName?.toLowerCase();
  if (domain !== undefined && DNS_NAME.test(domain)) {
    return `${LOOPBACK_HOST.test(domain) ? "http" : "https"}://${domain}`;
  }
  const host = request.headers.host?.trim().toLowerCase();
  return host !== undefined && LOOPBACK_HOST.test(host) ? `http://${host}` : undefined;
}

/** The stage or base path before `/.well-known/` ("" for none), when it is one API Gateway could have. */
function stagePathOf(request: HttpRequest): string | undefined {
  const prefix = prefixBeforeWellKnown(request.requestedPath);
  if (prefix === "") return "";
  const segments = prefix.split("/").slice(1);
  const valid = segments.every(
    (segment) => PATH_SEGMENT.test(segment) && segment !== "." && segment !== "..",
  );
  return valid ? prefix : undefined;
}

/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) for `/mcp`, public, at
 * `/.well-known/oauth-protected-resource` and `/.well-known/oauth-protected-resource/mcp`. MCP clients
 * fetch it after a 401 to learn where to sign in: API Gateway's JWT authorizer answers 401 without the
 * `WWW-Authenticate: Bearer resource_metadata=…` that would point there, so clients probe both URLs.
 * The resource is `https://<requestContext.domainName><stage or base path>/mcp` (see originOf).
 * Without JWT settings there is nothing to announce: 404, as for any unknown path; nor without a name
 * the front door vouches for (a hand-made event whose Host is not loopback): 404.
 */
export function handleResourceMetadata(request: HttpRequest, oauth: OAuthSettings | undefined): HttpResponse {
  if (oauth === undefined || request.method !== "GET") return jsonResponse(404, NOT_FOUND, {});
  const origin = originOf(request);
  const stagePath = stagePathOf(request);
  if (origin === undefined || stagePath === undefined) return jsonResponse(404, NOT_FOUND, {});
  const metadata = {
    resource: `${origin}${stagePath}/mcp`,
    authorization_servers: [oauth.issuer],
    ...(oauth.scopes.length > 0 ? { scopes_supported: oauth.scopes } : {}),
    bearer_methods_supported: ["header"],
    resource_name: "Amazon Managed Prometheus (MCP)",
  };
  return jsonResponse(200, metadata, { "Access-Control-Allow-Origin": "*", ...CACHE_HEADERS });
}
