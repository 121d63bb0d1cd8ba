import type { RequestSummary } from "../metrics/emf.js";
import type { RequestReport } from "../metrics/report.js";
import { cutText } from "../util/text.js";

/*
 * The request log line is bounded whatever the caller sends: each field is cut, and the JSON-RPC
 * methods of a payload (up to a megabyte of them) are summarised as the distinct names, in the order
 * first seen (at most LOGGED_METHODS, each cut to LOGGED_NAME_CHARS), how many messages had each name,
 * and how many messages there were in all.
 */
const LOGGED_HTTP_METHOD_CHARS = 16;
const LOGGED_PATH_CHARS = 256;
const LOGGED_PRINCIPAL_CHARS = 256;
const LOGGED_NAME_CHARS = 64;
const LOGGED_METHODS = 10;
const LOGGED_THROWN_CHARS = 1000;
/** Tool calls named on the request line, at most this many (a batch may hold 100). */
const LOGGED_TOOL_CALLS = 10;

/**
 * An HTTP method or path for the line ("-" for an empty value, which the logger would drop). The
 * line's fields are one object literal of such values: built on every request, its intermediate
 * objects were measurable (bench case warm-tools-list-info; `npm run bench:compare`).
 */
export function loggedMethod(method: string): string {
  return cutText(method || "-", LOGGED_HTTP_METHOD_CHARS);
}

export function loggedPath(path: string): string {
  return cutText(path || "-", LOGGED_PATH_CHARS);
}

/** The client software a request named (self-reported: for reading logs, never for decisions). */
export function loggedClient(client: { name: string; version: string }): string {
  return `${cutText(client.name, LOGGED_NAME_CHARS)}/${cutText(client.version, LOGGED_NAME_CHARS)}`;
}

/** The caller named by the authorizer (IAM ARN, JWT `sub`), or "-" when none was. */
export function loggedPrincipal(principal: string | undefined): string {
  return principal === undefined ? "-" : cutText(principal, LOGGED_PRINCIPAL_CHARS);
}

interface MethodSummary {
  /** Distinct method names in the order first seen ("-" for a message without one), at most LOGGED_METHODS. */
  rpc: string[];
  /** How many messages had each name of `rpc`, in the same order. */
  rpc_counts: number[];
  /** How many JSON-RPC messages the payload held (more than the sum of `rpc_counts` when names were left out). */
  rpc_messages: number;
}

/** The methods of a request's messages, summarised (see MethodSummary). */
export function summarizeMethods(methods: readonly string[]): MethodSummary {
  const counts = new Map<string, number>();
  for (const method of methods) {
    const name = cutText(method, LOGGED_NAME_CHARS);
    const count = counts.get(name);
    if (count !== undefined) counts.set(name, count + 1);
    else if (counts.size < LOGGED_METHODS) counts.set(name, 1);
  }
  return { rpc: [...counts.keys()], rpc_counts: [...counts.values()], rpc_messages: methods.length };
}

/**
 * The request line's account of its tool calls: each tool, how it went (`ok`, or the tool error's
 * kind: `rejected`, `unreachable`, `timeout`…), the result's bytes, the time and attempts spent
 * upstream; and the replies answered `-32001` at the deadline.
 */
export function toolFields(report: RequestReport | undefined): Record<string, unknown> {
  if (report === undefined) return {};
  const fields: Record<string, unknown> = {};
  if (report.tools.length > 0) {
    fields.tools = report.tools.slice(0, LOGGED_TOOL_CALLS).map((call) => ({
      tool: cutText(call.tool, LOGGED_NAME_CHARS),
      outcome: call.failed ? (call.errorKind ?? "error") : "ok",
      bytes: call.resultBytes,
      ...(call.truncated ? { truncated: true } : {}),
      upstream_ms: Math.round(call.upstreamMs * 100) / 100,
      attempts: call.upstreamAttempts,
      ms: Math.round(call.ms * 100) / 100,
    }));
    if (report.tools.length > LOGGED_TOOL_CALLS) fields.tool_calls = report.tools.length;
  }
  if (report.timeouts > 0) fields.timeouts = report.timeouts;
  return fields;
}

/** What a request's layers reported, for its metrics (nothing when metrics are off). */
export function reported(
  report: RequestReport | undefined,
): Pick<RequestSummary, "fault" | "timeouts" | "rehydrations" | "tools"> {
  return {
    fault: (report?.faults ?? 0) > 0,
    timeouts: report?.timeouts ?? 0,
    rehydrations: report?.rehydrations ?? 0,
    tools: report?.tools ?? [],
  };
}

/** Something thrown that is not an Error, for the log: never String() (a `toString` may be missing or throw). */
export function describeThrown(value: unknown): string {
  try {
    if (typeof value === "string") return cutText(value, LOGGED_THROWN_CHARS);
    return cutText(JSON.stringify(value) ?? typeof value, LOGGED_THROWN_CHARS);
  } catch {
    return `a thrown ${typeof value}`;
  }
}

/** Milliseconds since `started` (performance.now()), to two decimals. */
export function elapsedSince(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}
