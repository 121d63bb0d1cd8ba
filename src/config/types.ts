/** The configuration the application runs with: what loadConfig (index.ts) makes of the environment. */
import type { AuthMode } from "../prometheus/auth.js";
import type { BackendKind, BackendSpec } from "../prometheus/backends.js";
import type { SecretSource } from "../prometheus/secrets.js";
import type { LogLevel } from "./schema.js";

type SessionMode = "optional" | "required" | "off";
type PrometheusAuth = AuthMode;
/** Where sessions live: this process's memory, one file per session on disk, or a DynamoDB table. */
export type SessionStoreKind = "memory" | "file" | "dynamodb";

export interface Config {
  prometheusUrl: string | undefined;
  prometheusAuth: PrometheusAuth;
  /**
   * PROMETHEUS_SECRET (`basic` and `bearer` only): a Secrets Manager secret's ARN, an SSM parameter
   * (`ssm:/path`), or, where no Lambda runs, the credentials themselves (with a warning).
   */
  prometheusSecret: SecretSource | undefined;
  /** PROMETHEUS_HEADERS: extra headers of every Prometheus and Alertmanager request, names lower case. */
  prometheusHeaders: Readonly<Record<string, string>>;
  /** PROMETHEUS_KIND, else what PROMETHEUS_URL says (amp for AMP's, victoriametrics for vmselect's path). */
  prometheusKind: BackendKind;
  /**
   * BACKENDS (src/config/backends.ts): several named servers; the PROMETHEUS_* settings and
   * ALERTMANAGER_URL are then unset. Undefined: the one server PROMETHEUS_URL names, as before.
   */
  backends: readonly BackendSpec[] | undefined;
  /**
   * BACKENDS and no AMP: no backend signs with SigV4 or is an AMP workspace, no AMP_ENDPOINT, no
   * ALLOWED_WORKSPACES, no PYTHON_COMPAT. workspace_id then takes a backend's name only, and the tools
   * take no region or profile.
   */
  backendsOnly: boolean;
  /**
   * `ALLOWED_WORKSPACES`: the workspaces the function may read besides the one PROMETHEUS_URL names;
   * with either, no other workspace is read (see README "Configuration"). Each entry as given (trimmed,
   * without repeats): a workspace id (in the stack's region), a workspace URL
   * (`https://aps-workspaces.<region>.amazonaws.com/workspaces/ws-…/`) or a workspace ARN
   * (`arn:<partition>:aps:<region>:<account>:workspace/ws-…`); URLs and ARNs carry their region.
   */
  allowedWorkspaces: readonly string[];
  /**
   * `ALLOWED_REGIONS`: the only AWS regions the tools may call (a deployment sets its stack's region
   * and its `regions` parameter, the regions its role is granted), plus the regions of PROMETHEUS_URL
   * (an AMP URL's host) and of ALLOWED_WORKSPACES URLs and ARNs; undefined: any of the partition's.
   */
  allowedRegions: readonly string[] | undefined;
  awsRegion: string;
  /**
   * `JWT_ISSUER` / `JWT_SCOPES`: set when the API's authorizer checks JWTs (`auth=jwt`); the function
   * then publishes where to sign in (OAuth protected resource metadata). Undefined otherwise.
   */
  oauth: { issuer: string; scopes: readonly string[] } | undefined;
  ampEndpoint: string | undefined;
  /**
   * A plain Prometheus, not AMP: PROMETHEUS_URL is set, names no AMP workspace (`…/workspaces/ws-…/`),
   * PROMETHEUS_AUTH is not sigv4, no AMP_ENDPOINT is set, and PYTHON_COMPAT is off. The tools then take
   * no workspace_id, region or profile (passed anyway, they are ignored), GetAvailableWorkspaces is
   * left out unless TOOLS names it, and descriptions speak of the Prometheus server.
   */
  plainPrometheus: boolean;
  /**
   * SESSION_STORE: `dynamodb` whenever SESSION_TABLE is set; else `file` under `npm start` and
   * `invoke local` (a restart loses no session), `memory` in Lambda.
   */
  sessionStore: SessionStoreKind;
  /** SESSION_DIR: the file store's directory (default `.local/sessions` under the working directory). */
  sessionDir: string;
  sessionTable: string | undefined;
  dynamodbEndpoint: string | undefined;
  sessions: SessionMode;
  sessionTtlSeconds: number;
  pythonCompat: boolean;
  allowedOrigins: readonly string[];
  maxBodyBytes: number;
  /**
   * MAX_RESULT_TOKENS: the model's budget for one tool result, in tokens as the estimator counts them;
   * larger results are cut (see README "Large results").
   */
  maxResultTokens: number;
  /**
   * MAX_RESULT_BYTES: a hard cap on a tool result's text in bytes, beside the token budget; undefined
   * (unset) is the default cap of src/results/inlineSize.ts, what Claude Code keeps inline.
   */
  maxResultBytes: number | undefined;
  logLevel: LogLevel;
  /** METRICS: CloudWatch metrics (EMF on the request's log line) on or off; default on in Lambda, off locally. */
  metrics: boolean;
  /** METRICS_NAMESPACE: the CloudWatch namespace of the metrics. */
  metricsNamespace: string;
  /**
   * TRACING: X-Ray subsegments (Powertools Tracer) for each request, its tool calls and its AMP,
   * Prometheus and DynamoDB calls. Off (the default): the tracer is never loaded.
   */
  tracing: boolean;
  /** SERVICE_NAME: the `service` of every log line and metric. */
  serviceName: string;
  /** Running as a deployed Lambda (not `serverless offline` / `invoke local`, not a test). */
  inLambda: boolean;
  /** Running under `serverless offline` (`npm start`): Host headers are checked against DNS rebinding. */
  isOffline: boolean;
  /** Running under `serverless invoke local`. */
  isLocal: boolean;
  /**
   * TOOLS: the names of the tools served, in tools/list order (the five first). Default every tool;
   * the five of the Python server under PYTHON_COMPAT, unless TOOLS is set.
   */
  tools: readonly string[];
  /** ALERTMANAGER_URL: the Alertmanager ListSilences reads for a plain Prometheus. */
  alertmanagerUrl: string | undefined;
  /**
   * TENANT_CLAIM, TENANT_HEADER, ALLOWED_TENANTS: each caller's tenant is its JWT's claim, sent as the
   * tenant header (lower case; default `x-scope-orgid`) on its upstream requests; undefined: no tenants.
   */
  tenants: { claim: string; header: string; allowed: readonly string[] } | undefined;
}
