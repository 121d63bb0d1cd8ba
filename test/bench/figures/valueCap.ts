// Figure: what one string from a monitored system costs once cut to MAX_VALUE_CHARS (issue 36,
// src/monitoredText.ts), by both real tokenizers, for each kind of text (test/support/textKinds.ts): a
// 100,000-character value of prose, hex, base64, CJK, emoji, control characters. Why the cap is what it
// is: the densest text cut there must leave the default budget room for the rest of the item.
import { boundValue, MAX_VALUE_CHARS } from "../../../src/monitoredText.js";
import { TEXT_KINDS } from "../../support/textKinds.js";
import { realTokens } from "../../support/tokenizers.js";
import type { BenchContext } from "../context.js";
import type { Figure } from "../report.js";

/** MAX_RESULT_TOKENS's default: a cut value must stay under a fifth of it. */
const DEFAULT_BUDGET_TOKENS = 20_000;
const VALUE_CHARS = 100_000;

export async function run(_ctx: BenchContext): Promise<Figure[]> {
  const rows = Object.entries(TEXT_KINDS).map(([kind, make]) => {
    const shown = JSON.stringify(boundValue(make(VALUE_CHARS)));
    return { kind, bytes: Buffer.byteLength(shown), ...realTokens(shown) };
  });
  const most = Math.max(...rows.map((row) => Math.max(row.claude, row.o200k)));
  return [
    {
      id: "value-cap-tokens",
      title: `One ${VALUE_CHARS.toLocaleString("en-US")}-character value cut to ${MAX_VALUE_CHARS.toLocaleString("en-US")} characters (the marker included): its tokens, the densest kind of text`,
      unit: "tokens",
      ours: most,
      target: `≤ ${(DEFAULT_BUDGET_TOKENS / 5).toLocaleString("en-US")} by both tokenizers (a fifth of the default budget), whatever the text`,
      met: most <= DEFAULT_BUDGET_TOKENS / 5,
      note: rows
        .map((row) => `${row.kind}: ${row.bytes} bytes, Claude ${row.claude} / o200k ${row.o200k}`)
        .join("; "),
    },
  ];
}
