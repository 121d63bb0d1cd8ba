import { createServer, request as httpRequest } from "node:http";
import { closeServer, listenLoopback } from "./net.js";
import { readBody, type SigV4Expectation, verifySigV4 } from "./sigv4Verify.js";

export interface SigV4ProxyOptions extends SigV4Expectation {
  /** Base URL requests are forwarded to, e.g. a local Prometheus `http://127.0.0.1:9090`. */
  target: string;
  /**
   * Base URL of an Alertmanager, e.g. `http://127.0.0.1:9093`. When set, `/workspaces/<id>/alertmanager/<rest>`
   * goes to `<alertmanagerTarget>/<rest>`, as AMP serves its Alertmanager under the workspace URL. Unset, such
   * paths go to `target` like any other.
   */
  alertmanagerTarget?: string;
}

export interface ProxiedRequest {
  method: string;
  /** Path and query as received, before the `/workspaces/<id>` prefix is stripped. */
  rawUrl: string;
  accepted: boolean;
}

export interface SigV4Proxy {
  /** Base URL of the proxy (`http://127.0.0.1:<port>`). */
  url: string;
  /** The proxy URL laid out like an AMP workspace endpoint: `<url>/workspaces/<id>/`. */
  workspaceUrl(workspaceId: string): string;
  /** Every request received (accepted or not), in order. */
  readonly requests: readonly ProxiedRequest[];
  /** Why the last rejected request was rejected. */
  readonly lastRejection: string | undefined;
  /** Forgets recorded requests and the last rejection. */
  reset(): void;
  close(): Promise<void>;
}

const WORKSPACE_PREFIX = /^\/workspaces\/ws-[A-Za-z0-9_-]+(?=\/|$)/;
const ALERTMANAGER_PREFIX = /^\/workspaces\/ws-[A-Za-z0-9_-]+\/alertmanager(?=[/?]|$)/;

/**
 * An HTTP proxy on 127.0.0.1 that checks the SigV4 signature of every request (see verifySigV4) and forwards
 * the valid ones to `target`, stripping an AMP-style `/workspaces/<id>` path prefix (or, given
 * `alertmanagerTarget`, `/workspaces/<id>/alertmanager` ones there). Invalid ones get 403 with an AWS-like
 * message body.
 */
export async function startSigV4Proxy(options: SigV4ProxyOptions): Promise<SigV4Proxy> {
  const prometheusTarget = new URL(options.target);
  const alertmanagerTarget =
    options.alertmanagerTarget === undefined ? undefined : new URL(options.alertmanagerTarget);

  /** Where a request goes: the upstream and the path (with query) to ask it for. */
  const route = (rawUrl: string): { target: URL; path: string } => {
    if (alertmanagerTarget !== undefined && ALERTMANAGER_PREFIX.test(rawUrl)) {
      // Keep a base path the Alertmanager may be served under (--web.route-prefix).
      const base = alertmanagerTarget.pathname.replace(/\/$/, "");
      const rest = rawUrl.replace(ALERTMANAGER_PREFIX, "");
      return { target: alertmanagerTarget, path: `${base}${rest.startsWith("/") ? rest : `/${rest}`}` };
    }
    return { target: prometheusTarget, path: rawUrl.replace(WORKSPACE_PREFIX, "") || "/" };
  };
  const requests: ProxiedRequest[] = [];
  let lastRejection: string | undefined;

  const server = createServer(async (req, res) => {
    const rawUrl = req.url ?? "/";
    const body = await readBody(req);
    const verdict = await verifySigV4(
      { method: req.method ?? "GET", rawUrl, headers: req.headers, body },
      options,
    );
    requests.push({ method: req.method ?? "GET", rawUrl, accepted: verdict.ok });
    if (!verdict.ok) {
      lastRejection = verdict.reason;
      res.writeHead(403, {
        "content-type": "application/json",
        "x-amzn-errortype": "InvalidSignatureException",
      });
      res.end(
        JSON.stringify({
          message: `The request signature we calculated does not match the signature you provided. (${verdict.reason})`,
        }),
      );
      return;
    }
    const { target, path } = route(rawUrl);
    const headers = { ...req.headers, host: target.host };
    delete headers.authorization;
    const upstream = httpRequest(
      {
        hostname: target.hostname,
        port: target.port,
        method: req.method,
        path,
        headers,
      },
      (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
        upstreamRes.pipe(res);
      },
    );
    upstream.on("error", (error) => {
      res.writeHead(502, { "content-type": "application/json" });
      res.end(JSON.stringify({ message: `proxy could not reach the target: ${error.message}` }));
    });
    upstream.end(body);
  });

  const url = await listenLoopback(server);
  let closing: Promise<void> | undefined;
  return {
    url,
    workspaceUrl: (workspaceId) => `${url}/workspaces/${workspaceId}/`,
    get requests() {
      return requests;
    },
    get lastRejection() {
      return lastRejection;
    },
    reset() {
      requests.length = 0;
      lastRejection = undefined;
    },
    close() {
      closing ??= closeServer(server);
      return closing;
    },
  };
}
