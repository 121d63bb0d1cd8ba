// Figure "Alert questions": the on-call questions of issue 37 against the alerting stack (a real
// Prometheus with alerts firing and pending, a failing recording rule and the alerts it stops, a real
// Alertmanager with a silence, silences matching nothing and an inhibition), each answered in one call:
// what the model reads, in tokens by both real tokenizers. Before, the assistant assembled the overview
// from ten PromQL calls and three list calls (the trial); here each question is one call.
import { GetAlertHistory, GetHealthOverview, ListAlerts, ListRules } from "../../../tools/index.js";
import type { Tool } from "../../../tools/types.js";
import { INHIBITION, RULES, startAlertingStack } from "../../support/alerting.js";
import { realTokens } from "../../support/tokenizers.js";
import { makeToolCall, toolResult } from "../../support/toolCall.js";
import type { BenchContext } from "../context.js";
import type { Figure } from "../report.js";

/** The overview's target (issue 37): one screen. */
const OVERVIEW_TOKENS = 2_000;

interface Question {
  id: string;
  question: string;
  tool: Tool;
  args: Record<string, unknown>;
}

const QUESTIONS: readonly Question[] = [
  { id: "overview", question: "What is wrong right now?", tool: GetHealthOverview, args: {} },
  {
    id: "silenced",
    question: `Why did ${RULES.targetUp.name} notify no one, and ${INHIBITION.target}?`,
    tool: ListAlerts,
    args: { match: [RULES.targetUp.name, INHIBITION.target] },
  },
  {
    id: "cannot-fire",
    question: `Why can ${RULES.readsBroken.name} not fire?`,
    tool: ListRules,
    args: { name: RULES.readsBroken.name },
  },
  {
    id: "history",
    question: `Since when has ${RULES.upForTwoSeconds.name} fired, and did it fire earlier today?`,
    tool: GetAlertHistory,
    args: { match: RULES.upForTwoSeconds.name },
  },
];

export async function run(_ctx: BenchContext): Promise<Figure[]> {
  const stack = await startAlertingStack();
  try {
    const call = () =>
      makeToolCall({
        prometheusUrl: stack.prometheus.url,
        prometheusAuth: "none",
        alertmanagerUrl: stack.alertmanager.url,
      });
    const figures: Figure[] = [];
    for (const question of QUESTIONS) {
      const result = await toolResult(question.tool, question.args, call());
      if (result.isError) throw new Error(`${question.tool.name} failed: ${JSON.stringify(result.content)}`);
      const text = result.content.map((item) => ("text" in item ? item.text : "")).join("\n");
      const tokens = realTokens(text);
      const most = Math.max(tokens.claude, tokens.o200k);
      const limit = question.id === "overview" ? OVERVIEW_TOKENS : 20_000;
      figures.push({
        id: `alert-question-${question.id}`,
        title: `Alert question, one call (${question.tool.name}): ${question.question}`,
        unit: "tokens",
        ours: most,
        target: `1 call, ≤ ${limit.toLocaleString("en-US")} tokens by both tokenizers`,
        met: most <= limit,
        note: `Claude ${tokens.claude} / o200k ${tokens.o200k} tokens, ${Buffer.byteLength(text)} bytes${question.id === "overview" ? "; before, 13 calls (issue 37's trial: ten PromQL and three list calls)" : ""}`,
      });
    }
    return figures;
  } finally {
    await stack.close();
  }
}
