import { createServer, type IncomingMessage } from "node:http";
import { type FakeAmp, startFakeAmp } from "../support/fakeAmp.js";
import { closeServer, listenLoopback } from "../support/net.js";
import { type HostileUpstream, startHostileUpstream } from "./hostileUpstream.js";

/**
 * What the fuzzed tools talk to: a tiny Prometheus whose answer the query text chooses (so a seed
 * decides it, not chance), and the AMP control-plane fake, whose one ACTIVE workspace points at it.
 * Every answer comes at once, except `slow` (150 ms) and `hang` (never: the caller's timeout ends it;
 * the suite gives such events a short remaining time).
 *
 * | query contains | answer |
 * | --- | --- |
 * | `boom` | 503 (retried by the tools) |
 * | `bad` | 400 `bad_data` |
 * | `junk` | 200 with a body that is not JSON |
 * | `drop` | the connection is destroyed (a network error, retried) |
 * | `wide` | 200, a matrix of 40 series |
 * | `slow` | 200 after 150 ms |
 * | `hang` | nothing |
 * | anything else | 200, a vector of two samples |
 *
 * Beside it, the hostile Prometheus of test/fuzz/hostileUpstream.ts (deep nesting, huge label sets,
 * truncated and never-ending answers), also reachable as the workspace `ws-fuzz-hostile`.
 */
export const QUERY_BEHAVIOURS = ["boom", "bad", "junk", "drop", "wide", "slow", "hang"] as const;

export interface FuzzUpstream {
  /** The tiny Prometheus (use as PROMETHEUS_URL). */
  prometheusUrl: string;
  /** The AMP control-plane fake (use as AMP_ENDPOINT). */
  ampUrl: string;
  /** The hostile Prometheus and Alertmanager (test/fuzz/hostileUpstream.ts). */
  hostile: HostileUpstream;
  /**
   * Workspace ids the fake knows: one ACTIVE pointing at the tiny Prometheus, one CREATING, one
   * ACTIVE pointing at the hostile one.
   */
  workspaceIds: readonly string[];
  close(): Promise<void>;
}

export async function startFuzzUpstream(region: string): Promise<FuzzUpstream> {
  const prometheus = createServer((request, response) => {
    void answer(request).then(
      (reply) => {
        if (reply === "hang") return;
        if (reply === "drop") {
          request.socket.destroy();
          return;
        }
        const send = () => {
          response.writeHead(reply.status, { "content-type": "application/json" });
          response.end(reply.body);
        };
        if (reply.delayMs > 0) setTimeout(send, reply.delayMs).unref();
        else send();
      },
      () => request.socket.destroy(),
    );
  });
  const prometheusUrl = await listenLoopback(prometheus);
  let hostile: HostileUpstream | undefined;
  let amp: FakeAmp;
  try {
    hostile = await startHostileUpstream();
    amp = await startFakeAmp({
      region,
      workspaces: [
        { workspaceId: "ws-fuzz-active", status: "ACTIVE", prometheusEndpoint: `${prometheusUrl}/` },
        { workspaceId: "ws-fuzz-creating", status: "CREATING" },
        { workspaceId: "ws-fuzz-hostile", status: "ACTIVE", prometheusEndpoint: `${hostile.url}/` },
      ],
    });
  } catch (error) {
    await Promise.all([closeServer(prometheus), hostile?.close()]);
    throw error;
  }
  const started = hostile;
  return {
    prometheusUrl,
    ampUrl: amp.url,
    hostile: started,
    workspaceIds: ["ws-fuzz-active", "ws-fuzz-creating", "ws-fuzz-hostile"],
    async close() {
      await Promise.all([closeServer(prometheus), started.close(), amp.close()]);
    },
  };
}

type Reply = "hang" | "drop" | { status: number; body: string; delayMs: number };

async function answer(request: IncomingMessage): Promise<Reply> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const url = new URL(request.url ?? "/", "http://fuzz");
  const form = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
  const query = url.searchParams.get("query") ?? form.get("query") ?? "";
  if (query.includes("hang")) return "hang";
  if (query.includes("drop")) return "drop";
  if (query.includes("boom")) return json(503, { status: "error", errorType: "internal", error: "boom" });
  if (query.includes("bad")) {
    return json(400, {
      status: "error",
      errorType: "bad_data",
      error: `parse error in ${query.slice(0, 40)}`,
    });
  }
  if (query.includes("junk")) return { status: 200, body: '{"status":"success","data":{', delayMs: 0 };
  const delayMs = query.includes("slow") ? 150 : 0;
  if (url.pathname.includes("/label/")) {
    return json(200, { status: "success", data: ["up", "node_cpu_seconds_total", "é_metric"] }, delayMs);
  }
  if (url.pathname.endsWith("/query_range") || query.includes("wide")) {
    const result = Array.from({ length: query.includes("wide") ? 40 : 2 }, (_, i) => ({
      metric: { __name__: "up", instance: `host-${i}:9100`, job: "node" },
      values: [
        [1_700_000_000, "1"],
        [1_700_000_015, String(i)],
      ],
    }));
    return json(200, { status: "success", data: { resultType: "matrix", result } }, delayMs);
  }
  const result = [0, 1].map((i) => ({
    metric: { __name__: "up", instance: `host-${i}:9100` },
    value: [1_700_000_000, String(i)],
  }));
  return json(200, { status: "success", data: { resultType: "vector", result } }, delayMs);
}

function json(status: number, body: unknown, delayMs = 0): Reply {
  return { status, body: JSON.stringify(body), delayMs };
}
