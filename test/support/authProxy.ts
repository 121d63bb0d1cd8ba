import { createServer } from "node:http";
import { closeServer, listenLoopback } from "./net.js";

/**
 * A proxy in front of a real Prometheus that lets through only requests carrying the credentials
 * and tenant it expects, refusing the rest as Mimir and the usual gateways do: no or wrong
 * credentials 401; a tenant header missing 401 (`no org id`), naming another tenant 403. It records
 * every request's headers, so a test sees what reached it.
 */
export interface AuthProxyOptions {
  /** `Authorization` the requests must carry exactly (e.g. `Bearer t0ken`, `Basic …`); none: any. */
  authorization?: () => string;
  /** The tenant header and the tenants allowed; none: no tenant check. */
  tenant?: { header: string; allowed: readonly string[] };
  /**
   * The tenant in the path, as VictoriaMetrics cluster's vmselect takes it: only
   * `/select/<tenant>/prometheus/…` of an allowed tenant is served (as `/…`); any other path is 404.
   */
  pathTenant?: { allowed: readonly string[] };
}

export interface AuthProxy {
  url: string;
  /** Headers of every request received (names lower case), in order. */
  readonly seen: ReadonlyArray<Readonly<Record<string, string>>>;
  /** The path (without the query) of every request received, in order. */
  readonly paths: readonly string[];
  /** Requests refused, by status. */
  readonly refused: Readonly<Record<number, number>>;
  close(): Promise<void>;
}

export async function startAuthProxy(prometheusUrl: string, options: AuthProxyOptions): Promise<AuthProxy> {
  const seen: Array<Record<string, string>> = [];
  const paths: string[] = [];
  const refused: Record<number, number> = {};
  const refuse = (res: import("node:http").ServerResponse, status: number, text: string) => {
    refused[status] = (refused[status] ?? 0) + 1;
    res.writeHead(status, { "content-type": "text/plain" });
    res.end(text);
  };
  const server = createServer(async (req, res) => {
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([name, value]) => [
        name,
        Array.isArray(value) ? value.join(", ") : (value ?? ""),
      ]),
    );
    seen.push(headers);
    let path = req.url ?? "/";
    paths.push(path.split("?")[0] ?? "");
    if (options.authorization !== undefined && headers.authorization !== options.authorization()) {
      return refuse(res, 401, "unauthorized");
    }
    if (options.tenant !== undefined) {
      const tenant = headers[options.tenant.header.toLowerCase()];
      if (tenant === undefined || tenant === "") return refuse(res, 401, "no org id");
      if (!options.tenant.allowed.includes(tenant))
        return refuse(res, 403, `tenant ${tenant} may not read here`);
    }
    if (options.pathTenant !== undefined) {
      const match = /^\/select\/([^/]+)\/prometheus(\/.*)$/.exec(path);
      if (match === null || !options.pathTenant.allowed.includes(match[1] ?? "")) {
        return refuse(res, 404, "unsupported path");
      }
      path = match[2] ?? "/";
    }
    const upstream = await fetch(`${prometheusUrl}${path}`, {
      headers: { accept: "application/json" },
    });
    res.writeHead(upstream.status, {
      "content-type": upstream.headers.get("content-type") ?? "application/json",
    });
    res.end(Buffer.from(await upstream.arrayBuffer()));
  });
  const url = await listenLoopback(server);
  return {
    url,
    seen,
    paths,
    refused,
    close: () => closeServer(server),
  };
}
