import { CORS_PREFLIGHT_HEADERS, corsHeaders, emptyResponse } from "../responses.js";
import { type EdgeMiddleware, edgeAnswer, isPreflight } from "./edge.js";
import { isOriginAllowed } from "./origin.js";

// Our own rather than @middy/http-cors: that one writes its headers in `after`, which Middy skips for
// an answer a `before` returns early (every refusal here), and it answers `*` or nothing where the
// contract echoes an allowed origin and sends only `Vary: Origin` for a refused one.

/**
 * Decides the CORS headers of every answer to the request, first, so that a refusal carries them too:
 * the caller's origin when allowed (`*` when none was sent), nothing but `Vary` when refused. The
 * route's answer gets them in `after` (a refusal has them already: Middy runs no `after` for it). No
 * `onError`: a route that throws has no answer to carry them, and the entry's last resort
 * (src/lambda/lastResort.ts) answers with CORS headers of its own.
 */
export function corsDecision(allowedOrigins: readonly string[]): EdgeMiddleware {
  return {
    name: "cors",
    before: ({ event }) => {
      const origin = event.request.headers.origin;
      const allowed = origin === undefined || isOriginAllowed(origin, allowedOrigins);
      event.decided.cors = corsHeaders(origin, allowed);
    },
    after: (request) => {
      const answer = request.response;
      if (answer === undefined || answer === null) return;
      const headers = { ...request.event.decided.cors, ...answer.body.headers };
      request.response = { ...answer, body: { ...answer.body, headers } };
    },
  };
}

/** The preflight answer (204 with the methods and headers browsers may use), once the rules let it by. */
export const corsPreflight: EdgeMiddleware = {
  name: "cors-preflight",
  before: ({ event }) =>
    isPreflight(event.request)
      ? edgeAnswer(emptyResponse(204, { ...event.decided.cors, ...CORS_PREFLIGHT_HEADERS }))
      : undefined,
};
