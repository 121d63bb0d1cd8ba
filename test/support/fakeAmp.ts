import { createServer, type ServerResponse } from "node:http";
import { closeServer, listenLoopback } from "./net.js";
import { readBody, type SigV4Expectation, splitRawUrl, verifySigV4 } from "./sigv4Verify.js";

export interface FakeWorkspace {
  workspaceId: string;
  alias?: string;
  /** AMP status code: ACTIVE, CREATING, UPDATING, DELETING, CREATION_FAILED. */
  status: string;
  /** Returned by DescribeWorkspace; defaults to the real AMP URL layout for the fake's region. */
  prometheusEndpoint?: string;
}

export type AmpOperation = "ListWorkspaces" | "DescribeWorkspace";

export interface FakeAmpOptions extends SigV4Expectation {
  workspaces: FakeWorkspace[];
  /** Largest page ListWorkspaces returns (default 2, to force pagination). */
  pageSize?: number;
  /** Operations answered 403 AccessDeniedException. */
  deny?: AmpOperation[];
  /** Operations that never answer (until close). */
  hang?: AmpOperation[];
}

export interface FakeAmp {
  /** The control-plane endpoint to pass as AMP_ENDPOINT / ampEndpoint. */
  url: string;
  /** Calls per operation, counting only correctly signed ones. */
  readonly calls: Readonly<Record<AmpOperation, number>>;
  /** Requests whose signature was rejected. */
  readonly rejected: number;
  readonly lastRejection: string | undefined;
  /** Replaces the workspace list. */
  setWorkspaces(workspaces: FakeWorkspace[]): void;
  /** Resets the call counters and the rejection record. */
  resetCalls(): void;
  close(): Promise<void>;
}

const CREATED_AT = 1_700_000_000;

/**
 * A local fake of the AMP control plane (ListWorkspaces with pagination, DescribeWorkspace, 404
 * ResourceNotFoundException), answering only correctly SigV4-signed requests, on 127.0.0.1.
 */
export async function startFakeAmp(options: FakeAmpOptions): Promise<FakeAmp> {
  let workspaces = [...options.workspaces];
  const pageSize = options.pageSize ?? 2;
  const calls: Record<AmpOperation, number> = { ListWorkspaces: 0, DescribeWorkspace: 0 };
  let rejected = 0;
  let lastRejection: string | undefined;

  const summary = (ws: FakeWorkspace) => ({
    workspaceId: ws.workspaceId,
    ...(ws.alias !== undefined ? { alias: ws.alias } : {}),
    arn: `arn:aws:aps:${options.region}:123456789012:workspace/${ws.workspaceId}`,
    status: { statusCode: ws.status },
    createdAt: CREATED_AT,
    tags: {},
  });

  const server = createServer(async (req, res) => {
    const rawUrl = req.url ?? "/";
    const body = await readBody(req);
    const verdict = await verifySigV4(
      { method: req.method ?? "GET", rawUrl, headers: req.headers, body },
      options,
    );
    if (!verdict.ok) {
      rejected++;
      lastRejection = verdict.reason;
      return sendError(
        res,
        403,
        "InvalidSignatureException",
        "The request signature we calculated does not match the signature you provided.",
      );
    }
    const { path, query = {} } = splitRawUrl(rawUrl);
    const describe = /^\/workspaces\/([^/]+)$/.exec(path);
    const operation: AmpOperation | undefined =
      req.method === "GET" && path === "/workspaces"
        ? "ListWorkspaces"
        : req.method === "GET" && describe
          ? "DescribeWorkspace"
          : undefined;
    if (!operation)
      return sendError(res, 404, "UnknownOperationException", `No route for ${req.method} ${path}`);
    calls[operation]++;
    if (options.hang?.includes(operation)) return;
    if (options.deny?.includes(operation)) {
      return sendError(
        res,
        403,
        "AccessDeniedException",
        `User is not authorized to perform: aps:${operation}`,
      );
    }

    if (operation === "ListWorkspaces") {
      const maxResults = Math.min(pageSize, Number(query.maxResults ?? pageSize) || pageSize);
      const offset =
        query.nextToken === undefined
          ? 0
          : Number(Buffer.from(String(query.nextToken), "base64url").toString());
      const page = workspaces.slice(offset, offset + maxResults);
      const next =
        offset + maxResults < workspaces.length
          ? Buffer.from(String(offset + maxResults)).toString("base64url")
          : undefined;
      return sendJson(res, 200, { workspaces: page.map(summary), ...(next ? { nextToken: next } : {}) });
    }

    const id = decodeURIComponent(describe?.[1] ?? "");
    const ws = workspaces.find((candidate) => candidate.workspaceId === id);
    if (!ws) return sendError(res, 404, "ResourceNotFoundException", `Workspace ${id} not found`);
    const prometheusEndpoint =
      ws.prometheusEndpoint ??
      `https://aps-workspaces.${options.region}.amazonaws.com/workspaces/${ws.workspaceId}/`;
    return sendJson(res, 200, { workspace: { ...summary(ws), prometheusEndpoint } });
  });

  const url = await listenLoopback(server);
  let closing: Promise<void> | undefined;
  return {
    url,
    get calls() {
      return calls;
    },
    get rejected() {
      return rejected;
    },
    get lastRejection() {
      return lastRejection;
    },
    setWorkspaces(next) {
      workspaces = [...next];
    },
    resetCalls() {
      calls.ListWorkspaces = 0;
      calls.DescribeWorkspace = 0;
      rejected = 0;
      lastRejection = undefined;
    },
    close() {
      closing ??= closeServer(server);
      return closing;
    },
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function sendError(res: ServerResponse, status: number, type: string, message: string): void {
  res.writeHead(status, { "content-type": "application/json", "x-amzn-errortype": type });
  res.end(JSON.stringify({ message }));
}
