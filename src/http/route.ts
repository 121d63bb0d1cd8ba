export type Route = "health" | "mcp" | "resource-metadata" | "not-found";

const WELL_KNOWN = ".well-known";
const RESOURCE_METADATA = "oauth-protected-resource";

/**
 * Routes on the path's last segment, so stage prefixes (`/prod/mcp`) and trailing slashes do not
 * matter; except under `/.well-known/`, where only the OAuth protected resource metadata lives (RFC
 * 9728: `/.well-known/oauth-protected-resource`, and the same followed by the resource's path, `/mcp`).
 */
export function routeOf(path: string): Route {
  const segments = path.split("/").filter((segment) => segment !== "");
  const wellKnown = segments.indexOf(WELL_KNOWN);
  if (wellKnown !== -1) {
    const rest = segments.slice(wellKnown + 1);
    const isMetadata =
      rest[0] === RESOURCE_METADATA && (rest.length === 1 || (rest.length === 2 && rest[1] === "mcp"));
    return isMetadata ? "resource-metadata" : "not-found";
  }
  const last = segments.at(-1);
  if (last === "mcp") return "mcp";
  if (last === "health") return "health";
  return "not-found";
}

/** The part of `path` before `/.well-known/` (a stage prefix such as `/prod`), "" when there is none. */
export function prefixBeforeWellKnown(path: string): string {
  const at = path.indexOf(`/${WELL_KNOWN}/`);
  return at <= 0 ? "" : path.slice(0, at).replace(/\/+$/, "");
}
