/** The application's settings (README configuration table): tests clear them so the caller's shell cannot leak in. */
export const APP_SETTINGS = [
  "PROMETHEUS_URL",
  "PROMETHEUS_AUTH",
  "ALLOWED_WORKSPACES",
  "ALLOWED_REGIONS",
  "JWT_ISSUER",
  "JWT_SCOPES",
  "AMP_ENDPOINT",
  "PYTHON_COMPAT",
  "ALLOWED_ORIGINS",
  "MAX_BODY_BYTES",
  "MAX_RESULT_BYTES",
  "MAX_RESULT_TOKENS",
  "LOG_LEVEL",
  "METRICS",
  "METRICS_NAMESPACE",
  "SERVICE_NAME",
  "TRACING",
  "SESSIONS",
  "SESSION_TTL_SECONDS",
  "SESSION_TABLE",
  "DYNAMODB_ENDPOINT",
  "TOOLS",
  "ALERTMANAGER_URL",
] as const;

/** Variables that tell the app where it runs (deployed Lambda, serverless offline, invoke local). */
export const RUNTIME_MARKERS = ["IS_OFFLINE", "IS_LOCAL", "AWS_LAMBDA_FUNCTION_NAME"] as const;
