import type { BenchContext } from "../context.js";
import type { Figure } from "../report.js";
import { run as coldStart } from "./coldStart.js";
import { run as firstCall } from "./firstCall.js";
import { run as largeResults } from "./largeResults.js";
import { run as memory } from "./memory.js";
import { run as overhead } from "./overhead.js";
import { run as processPerRequest } from "./processPerRequest.js";
import { run as rehydration } from "./rehydration.js";
import { run as throughput } from "./throughput.js";
import { run as toolPath } from "./toolPath.js";

/** Every figure, in the order (`npm run bench -- --only=coldStart` runs one). */
export const FIGURES: Record<string, (ctx: BenchContext) => Promise<Figure[]>> = {
  overhead,
  processPerRequest,
  coldStart,
  toolPath,
  rehydration,
  memory,
  throughput,
  largeResults,
  firstCall,
};
