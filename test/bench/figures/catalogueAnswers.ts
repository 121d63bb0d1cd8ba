// Figure "Catalogue answers" (issue 38, items 5 and 6): every tool's largest default answer on large
// catalogues of uncommon words (test/support/largeCatalogue.ts: thousands of long made-up metric names,
// UUIDs, hashes, long paths and non-ASCII label values, series, rules, alerts, silences, in a real
// Prometheus and Alertmanager), at the default budget: tokens by both real tokenizers against the 20,000
// budget, the estimator's count, and characters against what Claude Code keeps inline (50,000 undeclared;
// the declared cap, src/results/inlineSize.ts).
import { estimateTokens } from "../../../src/results/tokens.js";
import { askCatalogue, CATALOGUE_ASKS } from "../../support/catalogueAnswers.js";
import { startCatalogueStack } from "../../support/largeCatalogue.js";
import { realTokens } from "../../support/tokenizers.js";
import type { BenchContext } from "../context.js";
import type { Figure } from "../report.js";

const BUDGET = 20_000;
/** What Claude Code keeps inline when a tool declares nothing. */
const UNDECLARED_INLINE_CHARS = 50_000;

export async function run(_ctx: BenchContext): Promise<Figure[]> {
  const stack = await startCatalogueStack();
  try {
    const figures: Figure[] = [];
    for (const ask of CATALOGUE_ASKS) {
      const { text, cut } = await askCatalogue(stack, ask);
      const { claude, o200k } = realTokens(text);
      const most = Math.max(claude, o200k);
      figures.push({
        id: `catalogue-${ask.name.toLowerCase().replace(/ /g, "-")}`,
        title: `Largest default answer on large catalogues of uncommon words: ${ask.name}`,
        unit: "tokens",
        ours: most,
        target: `≤ ${BUDGET.toLocaleString("en-US")} tokens by both tokenizers`,
        met: most <= BUDGET,
        note: `Claude ${claude} / o200k ${o200k} / estimated ${estimateTokens(text)} tokens; ${text.length.toLocaleString("en-US")} characters (${text.length <= UNDECLARED_INLINE_CHARS ? "within" : "over"} Claude Code's undeclared 50,000)${cut ? "; cut" : ""}`,
      });
    }
    return figures;
  } finally {
    await stack.close();
  }
}
