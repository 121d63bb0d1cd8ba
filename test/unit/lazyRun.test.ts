import { describe, expect, it } from "vitest";
import { GetServerInfo } from "../../tools/index.js";
import { lazyRun } from "../../tools/lazyRun.js";
import type { Tool } from "../../tools/types.js";
import { makeToolCall, toolResult } from "../support/toolCall.js";

// tools/lazyRun.ts: a tool's body imported on its first call. Through the real MCP server (toolResult),
// with GetServerInfo's real body, which needs no upstream.

/** The clock of every call: GetServerInfo answers the server's time. */
const NOW = Date.parse("2026-01-01T00:00:00Z");

const loadBody = () => import("../../tools/run/getServerInfo.js");

/** GetServerInfo with its body loaded by `load`. */
function withLoader(load: typeof loadBody): Tool {
  return { ...GetServerInfo, run: lazyRun(load) as Tool["run"] };
}

describe("a tool's body loaded on its first call", () => {
  it("answers as the tool does, the body imported once for calls made together and after", async () => {
    let loads = 0;
    const tool = withLoader(() => {
      loads++;
      return loadBody();
    });
    const call = { ...makeToolCall(), clock: () => NOW };
    const expected = await toolResult(GetServerInfo, {}, call);
    const together = await Promise.all([toolResult(tool, {}, call), toolResult(tool, {}, call)]);
    expect(together).toEqual([expected, expected]);
    expect(await toolResult(tool, {}, call)).toEqual(expected);
    expect(loads).toBe(1);
  });

  it("answers a failed import as any fault of a tool, and imports again on the next call", async () => {
    let loads = 0;
    const tool = withLoader(() => {
      loads++;
      return loads === 1 ? Promise.reject(new Error("chunk unreadable")) : loadBody();
    });
    const call = { ...makeToolCall(), clock: () => NOW };
    const failed = await toolResult(tool, {}, call);
    expect(failed.isError).toBe(true);
    expect(failed.content).toEqual([
      {
        type: "text",
        text: "Error executing tool GetServerInfo: internal error (details are in the function's log)",
      },
    ]);
    expect(await toolResult(tool, {}, call)).toEqual(await toolResult(GetServerInfo, {}, call));
    expect(loads).toBe(2);
  });
});
