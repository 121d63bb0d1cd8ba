import type { FakeAmp } from "../support/fakeAmp.js";
import type { SigV4Proxy } from "../support/sigv4Proxy.js";

export type Handler = (event: unknown, context: unknown) => Promise<unknown>;

/** What a figure's job in a child process gets (see child.ts): the handler as the child's environment configures it. */
export interface ChildContext {
  quick: boolean;
  handler: Handler;
  /** PROMETHEUS_URL as the parent set it (its Prometheus keeps running). */
  prometheusUrl: string;
}

/** What every figure gets: the handler (imported once, configured as below) and the local services. */
export interface BenchContext {
  /** Few iterations: CI runs this only to prove the benchmarks work. */
  quick: boolean;
  /** A second Node binary for the figures that run on two (`--node=<path>`; sdkFloor fetches Node 24 without it). */
  node?: string;
  /** An earlier git revision the figures that can also measure it against (`--base=<rev>`; sdkFloor's cold starts). */
  base?: string;
  /** Repository root. */
  root: string;
  /** The Lambda handler, configured with PROMETHEUS_URL = `prometheusUrl`, PROMETHEUS_AUTH=sigv4, AMP_ENDPOINT = `amp.url`, LOG_LEVEL=SILENT, METRICS=off, memory sessions (figure 1 also runs a child at the production defaults). */
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
