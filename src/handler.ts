import { createHandler } from "./app.js";
import { configFromEnvironment } from "./config.js";

/** The Lambda entry point (`src/handler.handler`): the handler for this function's environment. */
export const handler = createHandler(configFromEnvironment());
