import { ToolError } from "../errors.js";

/** The AMP workspace id in a URL such as `https://aps-workspaces.<region>.amazonaws.com/workspaces/ws-…/`. */
export function workspaceIdFromUrl(url: string | undefined): string | undefined {
  return url?.match(/\/workspaces\/(ws-[A-Za-z0-9_-]+)/)?.[1];
}

export interface AccessSettings {
  /** `PROMETHEUS_URL`: when it names an AMP workspace, that workspace is the one the function may read. */
  prometheusUrl: string | undefined;
  /** `ALLOWED_WORKSPACES`: more workspaces the function may read (it alone limits when the URL names none). */
  allowedWorkspaces?: readonly string[] | undefined;
}

/**
 * Which workspaces a deployment may read. A `PROMETHEUS_URL` naming a workspace pins the function to
 * it, plus any `ALLOWED_WORKSPACES`; an allow-list alone limits it to the list. With neither (no URL,
 * or a plain Prometheus URL), any workspace the execution role can read is reachable.
 */
export class WorkspaceAccess {
  /** The workspace `PROMETHEUS_URL` names, if any. */
  readonly configuredId: string | undefined;
  /** The workspaces that may be read, configured one first; undefined when any may. */
  readonly allowed: readonly string[] | undefined;
  private readonly allowedSet: ReadonlySet<string> | undefined;

  constructor(settings: AccessSettings) {
    this.configuredId = workspaceIdFromUrl(settings.prometheusUrl);
    const ids = [
      ...(this.configuredId === undefined ? [] : [this.configuredId]),
      ...(settings.allowedWorkspaces ?? []),
    ];
    this.allowedSet = ids.length === 0 ? undefined : new Set(ids);
    this.allowed = this.allowedSet === undefined ? undefined : [...this.allowedSet];
  }

  /** True when the deployment limits which workspaces may be read. */
  get limited(): boolean {
    return this.allowedSet !== undefined;
  }

  isAllowed(workspaceId: string): boolean {
    return this.allowedSet === undefined || this.allowedSet.has(workspaceId);
  }

  /** Refuses a workspace the deployment may not read, naming those it may; nothing is sent for it. */
  check(workspaceId: string): void {
    if (this.isAllowed(workspaceId)) return;
    const omit =
      this.configuredId === undefined ? "" : ` Omit workspace_id to use the configured ${this.configuredId}.`;
    throw new ToolError(
      `Workspace ${workspaceId} is not one this deployment may read: it is limited to ${this.list()}.${omit} To read others, the deployer must add them to ALLOWED_WORKSPACES (the allowedWorkspaces parameter).`,
      "not_allowed",
    );
  }

  /** The allowed workspaces for a message: `ws-a` or `ws-a, ws-b`. */
  list(): string {
    return (this.allowed ?? []).join(", ");
  }
}
