import type { BenchContext, ChildContext } from "../context.js";
import type { Figure } from "../report.js";
import { run as alertQuestions } from "./alertQuestions.js";
import { run as answerTokens, toolsListModes as toolsList } from "./answerTokens.js";
import { run as busyPort } from "./busyPort.js";
import { run as catalogueAnswers } from "./catalogueAnswers.js";
import { run as changePoints } from "./changePoints.js";
import { run as chartLimits } from "./chartLimits.js";
import { run as charts } from "./charts.js";
import { run as coldStart } from "./coldStart.js";
import { run as cutRangePoints } from "./cutRangePoints.js";
import { run as deadline } from "./deadline.js";
import { run as firstCall } from "./firstCall.js";
import { run as memory } from "./memory.js";
import { run as metricsEmf } from "./metricsEmf.js";
import { run as overhead, productionDefaults } from "./overhead.js";
import { run as processPerRequest } from "./processPerRequest.js";
import { run as regexMatching } from "./regexMatching.js";
import { run as rehydration } from "./rehydration.js";
import { run as sdkFloor } from "./sdkFloor.js";
import { run as seriesInView } from "./seriesInView.js";
import { run as streaming } from "./streaming.js";
import { run as throughput } from "./throughput.js";
import { run as toolPath } from "./toolPath.js";
import { run as valueCap } from "./valueCap.js";

/** Every figure, in the order (`npm run bench -- --only=coldStart` runs one). */
export const FIGURES: Record<string, (ctx: BenchContext) => Promise<Figure[]>> = {
  overhead,
  processPerRequest,
  coldStart,
  sdkFloor,
  toolPath,
  rehydration,
  memory,
  throughput,
  answerTokens,
  toolsList,
  valueCap,
  firstCall,
  streaming,
  charts,
  busyPort,
  chartLimits,
  deadline,
  alertQuestions,
  changePoints,
  catalogueAnswers,
  cutRangePoints,
  seriesInView,
  regexMatching,
  metricsEmf,
};

/** Jobs a figure runs in a child process of its own (`BENCH_CHILD=<name>`, see child.ts). */
export const CHILD_JOBS: Record<string, (ctx: ChildContext) => Promise<unknown>> = {
  "overhead-info": productionDefaults,
};
