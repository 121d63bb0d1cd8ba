import { startAlertmanager } from "./alerting.js";
import { type FakeAmp, type FakeWorkspace, startFakeAmp } from "./fakeAmp.js";
import { type RunningPrometheus, startPrometheus } from "./prometheus.js";
import { type SigV4Proxy, startSigV4Proxy } from "./sigv4Proxy.js";

/**
 * A local stand-in for AMP: real Prometheus and Alertmanager, behind the SigV4-checking proxy (Alertmanager
 * under `/workspaces/<id>/alertmanager/`, as AMP serves it), known to the fake control plane.
 */
export interface AmpStack {
  prometheus: RunningPrometheus;
  /** Base URL of the Alertmanager (no silences, no alerts). */
  alertmanagerUrl: string;
  proxy: SigV4Proxy;
  amp: FakeAmp;
  close(): Promise<void>;
}

/**
 * Starts the three on 127.0.0.1. Every ACTIVE workspace without an endpoint of its own is served by
 * the proxy (AMP's `/workspaces/<id>/` layout), so queries through it reach the real Prometheus.
 */
export async function startAmpStack(region: string, workspaces: FakeWorkspace[]): Promise<AmpStack> {
  const started = await Promise.allSettled([startPrometheus(), startAlertmanager()]);
  const [prometheusStart, alertmanagerStart] = started;
  if (prometheusStart.status === "rejected" || alertmanagerStart.status === "rejected") {
    // Stop whichever did start before reporting why the other did not.
    await Promise.all(started.map((one) => (one.status === "fulfilled" ? one.value.close() : undefined)));
    throw prometheusStart.status === "rejected"
      ? prometheusStart.reason
      : (alertmanagerStart as PromiseRejectedResult).reason;
  }
  const prometheus = prometheusStart.value;
  const alertmanager = alertmanagerStart.value;
  const proxy = await startSigV4Proxy({
    target: prometheus.url,
    alertmanagerTarget: alertmanager.url,
    region,
  });
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
    alertmanagerUrl: alertmanager.url,
    proxy,
    amp,
    close: async () => {
      await Promise.all([proxy.close(), amp.close()]);
      await Promise.all([prometheus.close(), alertmanager.close()]);
    },
  };
}
