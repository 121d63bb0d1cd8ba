import { SETTING_NAMES } from "../../src/config/index.js";

/**
 * The application's settings (docs/configuration.md): tests clear them so the caller's shell
 * cannot leak in. Every variable the server reads but the ports of `npm start` and AWS_REGION, which
 * every test environment has.
 */
export const APP_SETTINGS = SETTING_NAMES.filter(
  (name) => name !== "PORT" && name !== "LAMBDA_PORT" && name !== "AWS_REGION",
);

/** Variables that tell the app where it runs (deployed Lambda, serverless offline, invoke local). */
export const RUNTIME_MARKERS = ["IS_OFFLINE", "IS_LOCAL", "AWS_LAMBDA_FUNCTION_NAME"] as const;
