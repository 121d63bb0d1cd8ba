import {
  forBackends,
  forPlainPrometheus,
  instructionsFor,
  servesViews,
  toolsNamed,
} from "../../tools/index.js";
import type { Tool, ToolSettings } from "../../tools/types.js";
import type { Config } from "../config/index.js";
import type { Invocation } from "../context.js";
import { Secret } from "../prometheus/secrets.js";
import { createUpstream, type Upstream } from "../prometheus/upstream.js";

export interface ServerOptions {
  /** The tools served, in `tools/list` order. */
  tools: readonly Tool[];
  /**
   * Serve the MCP Apps view of range results (src/views/): the resource, the capability and the
   * extension declared, the tools that have a view pointing at it. Comes with the charts group.
   */
  views: boolean;
  /** The server's instructions to the model: how an investigation goes with these tools. */
  instructions: string;
  settings: ToolSettings;
  upstream: Upstream;
  /** PYTHON_COMPAT: a failed tool call becomes a JSON-RPC `-32603 Tool execution failed: …` error. */
  toolFailuresAsErrors: boolean;
  /** PYTHON_COMPAT: a result's text is JSON indented by 2 spaces, as the Python server wrote it (else compact). */
  pythonLayout: boolean;
  /**
   * Declare the numbers clients may send for times, steps and limits (NUMERIC_PARAMETERS) in the tools'
   * input schemas; off under PYTHON_COMPAT, whose schemas stay the Python server's (strings).
   */
  declareNumbers: boolean;
  /** MAX_RESULT_TOKENS: the model's budget for one tool result. */
  maxResultTokens: number;
  /**
   * MAX_RESULT_BYTES: a cap on one tool result's text in bytes, besides its share of the response;
   * undefined: the default cap (src/results/inlineSize.ts). Declared to Claude Code in tools/list.
   */
  maxResultBytes: number | undefined;
  /**
   * Receives errors that are not the caller's fault (they are answered `-32603 Internal error`, HTTP 500),
   * with the invocation of the request that met them.
   */
  onFault: (error: unknown, where: string, invocation: Invocation | undefined) => void;
}

/**
 * The options of the MCP servers serving `tools` (default: those TOOLS names) under `config`;
 * `profileSupported`: a local process (credentials files exist), not a deployed Lambda.
 */
export function serverOptionsOf(
  config: Config,
  chosen: readonly Tool[] | undefined,
  profileSupported: boolean,
  onFault: ServerOptions["onFault"],
): ServerOptions {
  const named = chosen ?? toolsNamed(config.tools);
  const tools = offeredForms(config, named);
  const served = tools.map((tool) => tool.name);
  const settings: ToolSettings = {
    prometheusUrl: config.prometheusUrl,
    prometheusAuth: config.prometheusAuth,
    prometheusSecret: config.prometheusSecret && new Secret(config.prometheusSecret),
    prometheusHeaders: config.prometheusHeaders,
    prometheusKind: config.prometheusKind,
    backends: config.backends?.map(({ secret, ...backend }) => ({
      ...backend,
      secret: secret && new Secret(secret),
    })),
    backendsOnly: config.backendsOnly,
    tenantHeader: config.tenants?.header,
    allowedWorkspaces: config.allowedWorkspaces,
    allowedRegions: config.allowedRegions,
    defaultRegion: config.awsRegion,
    ampEndpoint: config.ampEndpoint,
    alertmanagerUrl: config.alertmanagerUrl,
    profileSupported,
    served: new Set(served),
    defaultOrder: config.pythonCompat ? "highest" : "unusual",
    pythonCompat: config.pythonCompat,
  };
  return {
    tools,
    views: servesViews(served),
    instructions: instructionsFor(served, config.plainPrometheus, config.backends !== undefined),
    settings,
    upstream: createUpstream(settings),
    toolFailuresAsErrors: config.pythonCompat,
    pythonLayout: config.pythonCompat,
    declareNumbers: !config.pythonCompat,
    maxResultTokens: config.maxResultTokens,
    maxResultBytes: config.maxResultBytes,
    onFault,
  };
}

/** The tools as this configuration offers them: for BACKENDS, for one plain Prometheus, or as they are. */
function offeredForms(config: Config, named: readonly Tool[]): Tool[] {
  const [first, ...rest] = (config.backends ?? []).map((backend) => backend.name);
  if (first !== undefined) {
    const defaultName = config.backends?.find((backend) => backend.isDefault)?.name;
    return named.map((tool) => forBackends(tool, [first, ...rest], defaultName, config.backendsOnly));
  }
  return config.plainPrometheus ? named.map(forPlainPrometheus) : [...named];
}
