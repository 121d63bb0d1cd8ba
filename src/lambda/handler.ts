import { configFromEnvironment, configWarnings } from "../config/index.js";
import { createHandler } from "./app.js";

const config = configFromEnvironment();

/**
 * The Lambda entry point (`src/lambda/handler.handler`): the handler for this function's environment. Its
 * configuration mistakes are logged at cold start in Lambda; `npm start` and `invoke local` print them
 * once when they start (scripts/), before any request.
 */
export const handler = createHandler(config, { warnings: config.inLambda ? configWarnings(config) : [] });
