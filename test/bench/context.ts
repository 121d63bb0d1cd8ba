import type { FakeAmp } from "../support/fakeAmp.js";
import type { SigV4Proxy } from "../support/sigv4Proxy.js";

export type Handler = (event: unknown, context: unknown) => Promise<unknown>;

/** What every figure gets: the handler (imported once, configured as below) and the local services. */
export interface BenchContext {
  /** Few iterations: CI runs this only to prove the benchmarks work. */
  quick: boolean;
  /** Repository root. */
  root: string;
  /** The Lambda handler, configured with PROMETHEUS_URL = `prometheusUrl`, PROMETHEUS_AUTH=sigv4, AMP_ENDPOINT = `amp.url`, LOG_LEVEL=SILENT, memory sessions. */
  handler: Handler;
  /** A real Prometheus with the test dataset (it ignores signatures). */
  prometheusUrl: string;
  /** The same Prometheus behind the SigV4-verifying proxy, laid out like AMP (`proxy.workspaceUrl(WORKSPACE_ID)`). */
  proxy: SigV4Proxy;
  /** Fake AMP control plane knowing WORKSPACE_ID (ACTIVE, endpoint = the proxy). */
  amp: FakeAmp;
}

export const REGION = "us-east-1";
export const WORKSPACE_ID = "ws-bench000-0000-4000-8000-000000000001";
