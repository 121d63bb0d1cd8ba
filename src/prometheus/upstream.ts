import { ControlPlane } from "./controlPlane.js";
import { Credentials } from "./credentials.js";
import { DataPlane } from "./dataPlane.js";
import { Workspaces } from "./workspaces.js";

export interface UpstreamSettings {
  /** Fixed Prometheus/AMP workspace URL (`PROMETHEUS_URL`). */
  prometheusUrl: string | undefined;
  /** `sigv4` signs data-plane calls for AMP; `none` talks to a plain Prometheus. */
  prometheusAuth: "sigv4" | "none";
  /** Region used when a call names none. */
  defaultRegion: string;
  /** Override of the AMP control-plane endpoint (`AMP_ENDPOINT`). */
  ampEndpoint: string | undefined;
}

/** Everything the tools call, with the clients, signers and endpoints it caches for one handler. */
export interface Upstream {
  controlPlane: ControlPlane;
  dataPlane: DataPlane;
  workspaces: Workspaces;
}

export function createUpstream(settings: UpstreamSettings): Upstream {
  const credentials = new Credentials();
  const controlPlane = new ControlPlane(credentials, settings.ampEndpoint);
  return {
    controlPlane,
    dataPlane: new DataPlane(credentials, settings.prometheusAuth),
    workspaces: new Workspaces(controlPlane, settings),
  };
}
