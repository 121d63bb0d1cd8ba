import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/index.js";
import { serverOptionsOf } from "../../src/mcp/serverOptions.js";
import { renderToolResult } from "../../src/mcp/toolResult.js";
import { answerForm } from "../../tools/params.js";
import { askRange } from "../../tools/run/executeRangeQuery.js";
import { collect, rendered } from "../support/cutResults.js";
import { LEGACY_CASES } from "../support/legacyAnswers.js";
import { makeToolCall } from "../support/toolCall.js";

const GOLDEN = join(import.meta.dirname, "..", "golden", "legacy");

/** What commit 1344602 wrote for the case (test/golden/legacy/capture.ts). */
function golden(name: string): string {
  return readFileSync(join(GOLDEN, `${name}.txt`), "utf8");
}

/** The call's settings as the server makes them from the environment. */
function settingsOf(env: Record<string, string>) {
  return serverOptionsOf(loadConfig(env), undefined, true, () => {}).settings;
}

describe("PYTHON_COMPAT answers", () => {
  it("are written as commit 1344602 wrote them, byte for byte: whole and cut range answers, an instant vector", async () => {
    for (const { name, data, budget, asked } of LEGACY_CASES) {
      const { texts } = await rendered(data, budget, asked, 2);
      expect(texts.join("\n---\n"), name).toBe(golden(name));
    }
    // The cases hold a whole answer and a cut one.
    expect(golden("range-cut")).toContain('"truncated"');
    expect(golden("range-whole")).not.toContain('"truncated"');
  });

  it("are what the range tools' collector writes under PYTHON_COMPAT, `exact` or not", async () => {
    const settings = settingsOf({ PYTHON_COMPAT: "true" });
    expect(settings.pythonCompat).toBe(true);
    for (const { name, data, budget, asked } of LEGACY_CASES.filter((c) => c.asked.range !== undefined)) {
      const range = asked.range as { start: number; end: number; step: number };
      for (const exact of [undefined, true, false]) {
        const call = makeToolCall(settings, { budget });
        const args = {
          query: asked.query,
          start: String(range.start),
          end: String(range.end),
          step: String(range.step),
          exact,
        };
        // The tool's own collector, fed the same answer.
        const own = collect(data, budget, asked, askRange(args, call).collector());
        const texts = (await renderToolResult(own, budget, 2)).content.map(
          (item) => (item as { text: string }).text,
        );
        expect(texts.join("\n---\n"), `${name} exact=${exact}`).toBe(golden(name));
      }
    }
  });

  it("the form follows PYTHON_COMPAT first, then the call's `exact`", () => {
    const compat = makeToolCall(settingsOf({ PYTHON_COMPAT: "true" }));
    const plain = makeToolCall(settingsOf({}));
    expect(answerForm(true, compat)).toBe("legacy");
    expect(answerForm(undefined, compat)).toBe("legacy");
    expect(answerForm(true, plain)).toBe("exact");
    expect(answerForm(false, plain)).toBe("compact");
    expect(answerForm(null, plain)).toBe("compact");
  });
});
