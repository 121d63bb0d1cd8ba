export type Route = "health" | "mcp" | "not-found";

/** Routes on the path's last segment, so stage prefixes (`/prod/mcp`) and trailing slashes do not matter. */
export function routeOf(path: string): Route {
  const segments = path.split("/").filter((segment) => segment !== "");
  const last = segments.at(-1);
  if (last === "mcp") return "mcp";
  if (last === "health") return "health";
  return "not-found";
}
