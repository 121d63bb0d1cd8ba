import { type FakeAmp, type FakeWorkspace, startFakeAmp } from "./fakeAmp.js";
import { type RunningPrometheus, startPrometheus } from "./prometheus.js";
import { type SigV4Proxy, startSigV4Proxy } from "./sigv4Proxy.js";

/** A local stand-in for AMP: real Prometheus, behind the SigV4-checking proxy, known to the fake control plane. */
export interface AmpStack {
  prometheus: RunningPrometheus;
  proxy: SigV4Proxy;
  amp: FakeAmp;
  close(): Promise<void>;
}

/**
 * Starts the three on 127.0.0.1. Every ACTIVE workspace without an endpoint of its own is served by
 * the proxy (AMP's `/workspaces/<id>/` layout), so queries through it reach the real Prometheus.
 */
export async function startAmpStack(region: string, workspaces: FakeWorkspace[]): Promise<AmpStack> {
  const prometheus = await startPrometheus();
  const proxy = await startSigV4Proxy({ target: prometheus.url, region });
  const amp = await startFakeAmp({
    region,
    workspaces: workspaces.map((workspace) =>
      workspace.status === "ACTIVE" && workspace.prometheusEndpoint === undefined
        ? { ...workspace, prometheusEndpoint: proxy.workspaceUrl(workspace.workspaceId) }
        : workspace,
    ),
  });
  return {
    prometheus,
    proxy,
    amp,
    close: async () => {
      await Promise.all([proxy.close(), amp.close()]);
      await prometheus.close();
    },
  };
}
