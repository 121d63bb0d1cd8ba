import { ErrorCode } from "../../mcp/sdk.js";
import type { HttpRequest } from "../event.js";
import { trimOws } from "../fieldValue.js";
import { type EdgeMiddleware, type Refusal, refusalAnswer } from "./edge.js";

// Our own rather than @middy/http-cors' origin check: it answers nothing itself (it only leaves the
// header out), where the contract refuses a foreign origin 403 with a JSON-RPC error.

export interface OriginSettings {
  allowedOrigins: readonly string[];
  /** Under `serverless offline` the Host header is checked too (DNS rebinding). */
  checkHost: boolean;
}

const LOCAL_HOSTNAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

function hostnameOf(hostHeader: string): string {
  const trimmed = trimOws(hostHeader).toLowerCase();
  if (trimmed.startsWith("[")) return trimmed.slice(0, trimmed.indexOf("]") + 1);
  return trimmed.split(":")[0] ?? "";
}

export function isOriginAllowed(origin: string, allowedOrigins: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  // An allowed origin is echoed in Access-Control-Allow-Origin: only a serialized origin, exactly as
  // browsers send it, is (the URL parser would accept "http://local\nhost" as localhost).
  if (url.origin !== origin) return false;
  if ((url.protocol === "http:" || url.protocol === "https:") && LOCAL_HOSTNAMES.has(url.hostname))
    return true;
  return allowedOrigins.includes("*") || allowedOrigins.includes(url.origin);
}

function isHostAllowed(host: string | undefined): boolean {
  return host === undefined || LOCAL_HOSTNAMES.has(hostnameOf(host));
}

/** The origin/host rule: a browser page on a foreign origin (or a rebinding DNS name locally) is refused. */
export function refuseForeignOrigin(request: HttpRequest, settings: OriginSettings): Refusal | undefined {
  const origin = request.headers.origin;
  if (origin !== undefined && !isOriginAllowed(origin, settings.allowedOrigins)) {
    return {
      status: 403,
      code: ErrorCode.InvalidRequest,
      message: `Forbidden: origin ${origin} is not allowed`,
    };
  }
  if (settings.checkHost && !isHostAllowed(request.headers.host)) {
    return { status: 403, code: ErrorCode.InvalidRequest, message: "Forbidden: host is not allowed" };
  }
  return undefined;
}

/** The origin/host rule as a middleware: a preflight from a foreign origin is refused too. */
export function originRule(settings: OriginSettings): EdgeMiddleware {
  return {
    name: "origin",
    before: ({ event }) => refusalAnswer(refuseForeignOrigin(event.request, settings), event.decided),
  };
}
