import { configFromEnvironment, configWarnings } from "../config/index.js";
import { createStreamingHandler } from "./streaming.js";

const config = configFromEnvironment();

/**
 * The Lambda entry point of a streaming front door (`src/lambda/streamHandler.handler`): the handler for
 * this function's environment, answering through the Node runtime's response streaming. Its
 * configuration mistakes are logged at cold start, as src/lambda/handler.ts does.
 */
export const handler = createStreamingHandler(config, {
  warnings: config.inLambda ? configWarnings(config) : [],
});
