import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/index.js";
import {
  startRequest,
  withCancellation,
  withMargin,
  withReport,
  withShareOfReply,
  withTrace,
} from "../../src/context.js";
import { RequestReport } from "../../src/metrics/report.js";
import { annotateAnswer, inInvocation, type Trace, traced } from "../../src/tracing/trace.js";
import { RecordingTrace } from "../support/recordingTrace.js";

describe("TRACING", () => {
  it("is off by default; on or off (true/false, 1/0, yes/no); anything else fails naming the variable", () => {
    expect(loadConfig({}).tracing).toBe(false);
    for (const on of ["on", "ON", "true", "1", "yes"]) expect(loadConfig({ TRACING: on }).tracing).toBe(true);
    for (const off of ["off", "false", "0", "no", " "])
      expect(loadConfig({ TRACING: off }).tracing).toBe(false);
    expect(() => loadConfig({ TRACING: "xray" })).toThrow(/TRACING="xray" \(expected on or off\)/);
  });
});

describe("traced", () => {
  it("without a parent, runs the call as it is: same promise, no subsegment", async () => {
    const answer = Promise.resolve(42);
    let given: Trace | undefined = new RecordingTrace();
    const result = traced(undefined, "AMP ListWorkspaces", (span) => {
      given = span;
      return answer;
    });
    expect(result).toBe(answer);
    expect(given).toBeUndefined();
    await expect(result).resolves.toBe(42);
  });

  it("opens one subsegment of the parent, closed once the call is answered", async () => {
    const parent = new RecordingTrace();
    const result = await traced(parent, "Prometheus /query", async (span) => {
      span?.annotate("status", 200);
      expect(parent.children[0]?.closes).toBe(0);
      return "answer";
    });
    expect(result).toBe("answer");
    expect(parent.children).toHaveLength(1);
    const [span] = parent.children as [RecordingTrace];
    expect(span).toMatchObject({ name: "Prometheus /query", annotations: { status: 200 }, closes: 1 });
    expect(span.failures).toEqual([]);
    expect(span.flags).toEqual([]);
  });

  it("a failure is recorded (from a downstream service), the subsegment closed, the error thrown on", async () => {
    const parent = new RecordingTrace();
    const error = new Error("connection refused");
    await expect(traced(parent, "DynamoDB get", () => Promise.reject(error))).rejects.toBe(error);
    expect(parent.children[0]).toMatchObject({ failures: [{ error, remote: true }], flags: [], closes: 1 });
  });

  it("a call that throws before returning a promise is recorded and closed too", async () => {
    const parent = new RecordingTrace();
    const error = new TypeError("bad");
    await expect(
      traced(parent, "AMP DescribeWorkspace", () => {
        throw error;
      }),
    ).rejects.toBe(error);
    expect(parent.children[0]).toMatchObject({ failures: [{ error }], closes: 1 });
  });

  it("an error the caller made is flagged an error, not recorded as a fault", async () => {
    const parent = new RecordingTrace();
    const refused = Object.assign(new Error("version mismatch"), { name: "ConditionalCheckFailedException" });
    await expect(
      traced(
        parent,
        "DynamoDB update",
        () => Promise.reject(refused),
        (error) => (error as Error).name === "ConditionalCheckFailedException",
      ),
    ).rejects.toBe(refused);
    expect(parent.children[0]).toMatchObject({ failures: [], flags: ["error"], closes: 1 });
  });
});

describe("inInvocation", () => {
  const tracingOf = (trace: Trace | undefined) => ({ invocation: () => trace });

  it("runs the invocation in its subsegment, closed once answered; a throw is recorded on it", async () => {
    const trace = new RecordingTrace("## handler");
    let seen: Trace | undefined;
    await inInvocation(tracingOf(trace), async (given) => {
      seen = given;
    });
    expect(seen).toBe(trace);
    expect(trace.closes).toBe(1);
    const failing = new RecordingTrace("## handler");
    const error = new Error("fault");
    await expect(inInvocation(tracingOf(failing), () => Promise.reject(error))).rejects.toBe(error);
    expect(failing).toMatchObject({ failures: [{ error }], closes: 1 });
  });

  it("an invocation not traced (tracing off, not sampled) runs as it is", async () => {
    let seen: Trace | undefined = new RecordingTrace();
    await expect(
      inInvocation(tracingOf(undefined), async (given) => {
        seen = given;
        return 1;
      }),
    ).resolves.toBe(1);
    expect(seen).toBeUndefined();
  });
});

describe("annotateAnswer", () => {
  it("route, status, era and the _meta traceparent's trace id; 4xx an error, 5xx a fault", () => {
    const ok = new RecordingTrace();
    annotateAnswer(ok, {
      route: "mcp",
      status: 200,
      era: "modern",
      mcpTraceId: "4bf92f3577b34da6a3ce929d0e0e4736",
    });
    expect(ok.annotations).toEqual({
      route: "mcp",
      status: 200,
      era: "modern",
      mcp_trace_id: "4bf92f3577b34da6a3ce929d0e0e4736",
    });
    expect(ok.flags).toEqual([]);
    const refused = new RecordingTrace();
    annotateAnswer(refused, { route: "mcp", status: 404, era: undefined, mcpTraceId: undefined });
    expect(refused.annotations).toEqual({ route: "mcp", status: 404 });
    expect(refused.flags).toEqual(["error"]);
    const fault = new RecordingTrace();
    annotateAnswer(fault, { route: "direct", status: 500, era: "legacy", mcpTraceId: undefined });
    expect(fault.flags).toEqual(["fault"]);
    annotateAnswer(undefined, { route: "mcp", status: 200, era: undefined, mcpTraceId: undefined });
  });
});

describe("the request context carries its trace", () => {
  it("from startRequest through every derived context; withTrace replaces it and keeps the rest", () => {
    const trace = new RecordingTrace();
    const report = new RequestReport();
    const request = startRequest({ timeoutMs: 10_000, principal: "p", report, trace });
    try {
      expect(request.trace).toBe(trace);
      expect(withMargin(request, 100).trace).toBe(trace);
      expect(withShareOfReply(request, 2).trace).toBe(trace);
      expect(withReport(request, undefined).trace).toBe(trace);
      expect(withCancellation(request, new AbortController().signal).trace).toBe(trace);
      const tool = trace.open("Tool ExecuteQuery");
      const inTool = withTrace(request, tool);
      expect(inTool.trace).toBe(tool);
      expect(inTool.report).toBe(report);
      expect(inTool.principal).toBe("p");
      expect(inTool.deadlineAt).toBe(request.deadlineAt);
      expect(withCancellation(withMargin(inTool, 100), new AbortController().signal).trace).toBe(tool);
      expect(startRequest({ timeoutMs: 1_000 }).trace).toBeUndefined();
    } finally {
      request.end();
    }
  });
});
