import { type AlertingStack, type AlertingStackOptions, startAlertingStack } from "./alerting.js";
import { type FakeAmp, startFakeAmp } from "./fakeAmp.js";
import { type SigV4Proxy, startSigV4Proxy } from "./sigv4Proxy.js";

/** The alerting stack, and the same as an AMP workspace: the SigV4-checking proxy before it, the fake control plane. */
export interface AlertingAmp {
  stack: AlertingStack;
  /** Prometheus and Alertmanager under AMP's `/workspaces/<id>/` layout (`proxy.workspaceUrl(id)`). */
  proxy: SigV4Proxy;
  /** Knows `workspaceId`, ACTIVE, its endpoint the proxy. */
  amp: FakeAmp;
  /** Stops all three. */
  close(): Promise<void>;
}

/** Starts the alerting stack (startAlertingStack), then the proxy and the fake AMP in front of it. */
export async function startAlertingAmp(
  region: string,
  workspaceId: string,
  options: AlertingStackOptions = {},
): Promise<AlertingAmp> {
  const stack = await startAlertingStack(options);
  let proxy: SigV4Proxy | undefined;
  try {
    proxy = await startSigV4Proxy({
      target: stack.prometheus.url,
      alertmanagerTarget: stack.alertmanager.url,
      region,
    });
    const amp = await startFakeAmp({
      region,
      workspaces: [{ workspaceId, status: "ACTIVE", prometheusEndpoint: proxy.workspaceUrl(workspaceId) }],
    });
    const started = proxy;
    return {
      stack,
      proxy: started,
      amp,
      async close() {
        await Promise.all([started.close(), amp.close()]);
        await stack.close();
      },
    };
  } catch (error) {
    await proxy?.close();
    await stack.close();
    throw error;
  }
}
