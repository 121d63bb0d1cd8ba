// A tool's result as MCP content within the reply's budget: its JSON as text and structured content, cut
// again while over the budget, or a chart as an image and its facts; and the bytes its reply takes.

import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Picture } from "../../tools/types.js";
import { ToolError } from "../errors.js";
import type { Progress } from "../progress.js";
import { FIT_ATTEMPTS, REFIT_MARGIN, REPLY_ENVELOPE_BYTES } from "../results/budget.js";
import { type Budget, costOfText, type Fittable, type Fitted, fitsIn, isFittable } from "../results/fit.js";

/**
 * The tool's result as MCP content: its JSON as text and the same object as structuredContent, and
 * for one that matched nothing a hint (not in the Python layout). The text is within the budget: a
 * result too large cuts itself (its first key `truncated` says so, with its note).
 */
export async function renderToolResult(
  result: Record<string, unknown> | Fittable | Picture,
  budget: Budget,
  indent?: number,
): Promise<CallToolResult> {
  return (await render(result, budget, indent, undefined)).result;
}

/** A tool's result as MCP content, and the most bytes its JSON-RPC reply takes (id aside). */
export interface Rendered {
  result: CallToolResult;
  replyBytes: number;
  /** Bytes of text given to the model. */
  textBytes: number;
  /** The result was cut to fit. */
  truncated: boolean;
}

export async function render(
  result: Record<string, unknown> | Fittable | Picture,
  budget: Budget,
  indent: number | undefined,
  progress: Progress | undefined,
): Promise<Rendered> {
  if (result instanceof Picture) return renderedPicture(result, budget, indent);
  if (!isFittable(result)) {
    const text = JSON.stringify(result, null, indent);
    return rendered({ value: result }, text, Buffer.byteLength(text, "utf8"));
  }
  let asked = budget;
  for (let attempt = 1; ; attempt++) {
    const whole = await result.fit(asked, { indent }, progress);
    // The Python layout (PYTHON_COMPAT) is the Python server's, which gave no hints.
    const fitted = indent === undefined ? whole : { ...whole, hint: undefined };
    const text = JSON.stringify(fitted.value, null, indent);
    const cost = textCost(fitted.hint === undefined ? text : text + fitted.hint, budget);
    if (fitsIn(cost, budget)) return rendered(fitted, text, Buffer.byteLength(text, "utf8"));
    if (attempt >= FIT_ATTEMPTS) {
      throw new ToolError(
        `The result does not fit this reply's budget (${budget.tokens} tokens, ${budget.bytes} bytes), not even cut. Ask for less: a narrower query, or fewer calls in one batch.`,
        "too_large",
      );
    }
    // Over by the estimate's slack or the layout: ask again with proportionally less of what was over.
    asked = {
      tokens: Math.floor(asked.tokens * Math.min(1, budget.tokens / cost.tokens) * REFIT_MARGIN),
      bytes: Math.floor(asked.bytes * Math.min(1, budget.bytes / cost.bytes) * REFIT_MARGIN),
    };
  }
}

/** The text's bytes and estimated tokens; no estimate is needed while its bytes fit the token budget. */
function textCost(text: string, budget: Budget): { tokens: number; bytes: number } {
  const bytes = Buffer.byteLength(text, "utf8");
  // The estimate never exceeds the bytes (no run costs more tokens than it has bytes).
  return bytes <= budget.tokens ? { tokens: bytes, bytes } : { ...costOfText(text), bytes };
}

export function rendered(fitted: Fitted, text: string, textBytes: number): Rendered {
  const content: CallToolResult["content"] = [{ type: "text", text }];
  if (fitted.hint) content.push({ type: "text", text: fitted.hint });
  const hintBytes = fitted.hint ? Buffer.byteLength(fitted.hint, "utf8") : 0;
  // The reply carries the text escaped (at most twice its bytes) and the structured copy (at most its bytes again).
  return {
    result: { content, structuredContent: fitted.value },
    replyBytes: 3 * (textBytes + hintBytes) + REPLY_ENVELOPE_BYTES,
    textBytes: textBytes + hintBytes,
    truncated: fitted.value.truncated !== undefined,
  };
}

/**
 * A picture as MCP content: the image, then its facts as text (also the structured content). The
 * image goes to the model as an image (a multimodal model reads a chart for a fixed number of tokens,
 * whatever its points); the reply carries it base64-encoded, which must fit the reply's bytes.
 */
function renderedPicture(picture: Picture, budget: Budget, indent: number | undefined): Rendered {
  const data = Buffer.from(picture.png).toString("base64");
  const text = JSON.stringify(picture.facts, null, indent);
  const textBytes = Buffer.byteLength(text, "utf8");
  const replyBytes = data.length + 3 * textBytes + REPLY_ENVELOPE_BYTES;
  if (data.length + 2 * textBytes > budget.bytes * 3) {
    throw new ToolError(
      `The chart (${picture.png.length} bytes) does not fit this reply (${budget.bytes} bytes for a result): send fewer calls in one batch.`,
      "too_large",
    );
  }
  return {
    result: {
      content: [
        { type: "image", data, mimeType: "image/png" },
        { type: "text", text },
      ],
      structuredContent: picture.facts,
    },
    replyBytes,
    textBytes,
    truncated: false,
  };
}
