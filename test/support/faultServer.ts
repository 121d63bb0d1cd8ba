import { createServer } from "node:http";
import { listenRecording, type RecordingServer } from "./net.js";

export { refusedUrl } from "./net.js";

/** What the server does with one request. */
export type FaultStep =
  | { status: number; body?: unknown; headers?: Record<string, string> }
  /** Accept the request and never answer (the connection is dropped on close). */
  | { hang: true };

/**
 * The server: its base URL (`http://127.0.0.1:<port>`; any path is served by the script), the requests it
 * got, and those it saw given up: their connection closed by the client while it held them unanswered.
 */
export interface FaultServer extends RecordingServer {
  readonly dropped: readonly string[];
}

/** A Prometheus API success body, as /api/v1/query would send it. */
export function successBody(data: unknown = { resultType: "vector", result: [] }): unknown {
  return { status: "success", data };
}

/** A Prometheus API error body, e.g. `errorBody("bad_data", 'invalid parameter "query": ...')`. */
export function errorBody(errorType: string, error: string): unknown {
  return { status: "error", errorType, error };
}

/**
 * A scriptable Prometheus-like server on 127.0.0.1: request n gets `steps[n]`, and every request after the
 * script ends gets its last step. E.g. `[{status: 503}, {status: 503}, {status: 200, body: successBody()}]`.
 */
export async function startFaultServer(steps: FaultStep[]): Promise<FaultServer> {
  if (steps.length === 0) throw new Error("startFaultServer needs at least one step");
  const requests: string[] = [];
  const dropped: string[] = [];
  let closing = false;
  const server = createServer((req, res) => {
    const step = steps[Math.min(requests.length, steps.length - 1)] as FaultStep;
    requests.push(req.url ?? "/");
    req.resume();
    if ("hang" in step) {
      res.once("close", () => {
        if (!closing) dropped.push(req.url ?? "/");
      });
      return;
    }
    const body =
      step.body === undefined ? "" : typeof step.body === "string" ? step.body : JSON.stringify(step.body);
    res.writeHead(step.status, { "content-type": "application/json", ...step.headers });
    res.end(body);
  });
  const recording = await listenRecording(server, requests);
  return {
    url: recording.url,
    get requests() {
      return requests;
    },
    dropped,
    close() {
      closing = true;
      return recording.close();
    },
  };
}
