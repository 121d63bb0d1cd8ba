import { createServer } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { listenRecording, type RecordingServer } from "./net.js";

/** How the proxy slows what passes through it. */
export interface Slowness {
  /** Answer the first this many requests HTTP 503 (a Prometheus restarting), then pass them on. */
  failFirst?: number;
  /** Wait this long before the answer's headers (a slow query). */
  headersAfterMs?: number;
  /** Send the answer's body in pieces of this many bytes… */
  chunkBytes?: number;
  /** …each this long after the one before (a slow network). */
  chunkEveryMs?: number;
}

/** The proxy: its base URL (`http://127.0.0.1:<port>`, standing in for the upstream's) and the requests it got. */
export interface SlowProxy extends RecordingServer {
  /** How many answers their caller abandoned before the proxy finished sending them. */
  readonly abandoned: number;
}

/**
 * A proxy on 127.0.0.1 in front of a real Prometheus (`upstream`) that answers as it does, only
 * slower: some first requests 503, headers late, the body trickled. What progress is told about.
 */
export async function startSlowProxy(upstream: string, slowness: Slowness): Promise<SlowProxy> {
  const requests: string[] = [];
  let abandoned = 0;
  const server = createServer(async (req, res) => {
    const path = req.url ?? "/";
    requests.push(path);
    req.resume();
    res.once("close", () => {
      if (!res.writableFinished) abandoned++;
    });
    try {
      if (requests.length <= (slowness.failFirst ?? 0)) {
        res.writeHead(503, { "content-type": "text/plain" });
        res.end("Service Unavailable");
        return;
      }
      const answer = await fetch(`${upstream}${path}`, { headers: { accept: "application/json" } });
      const body = Buffer.from(await answer.arrayBuffer());
      await sleep(slowness.headersAfterMs ?? 0);
      res.writeHead(answer.status, {
        "content-type": answer.headers.get("content-type") ?? "application/json",
      });
      const size = slowness.chunkBytes ?? body.length;
      for (let at = 0; at < body.length; at += size) {
        if (at > 0) await sleep(slowness.chunkEveryMs ?? 0);
        if (res.destroyed) return;
        res.write(body.subarray(at, at + size));
      }
      res.end();
    } catch {
      res.destroy();
    }
  });
  const recording = await listenRecording(server, requests);
  return {
    url: recording.url,
    requests,
    close: () => recording.close(),
    get abandoned() {
      return abandoned;
    },
  };
}
