import { describe, expect, it } from "vitest";
import { ConfigError, configFromEnvironment, loadConfig } from "../../src/config/index.js";

describe("configuration", () => {
  it("defaults match the documented table", () => {
    expect(loadConfig({})).toStrictEqual({
      prometheusUrl: undefined,
      prometheusAuth: "sigv4",
      prometheusSecret: undefined,
      prometheusHeaders: {},
      prometheusKind: "amp",
      backends: undefined,
      backendsOnly: false,
      allowedWorkspaces: [],
      allowedRegions: undefined,
      awsRegion: "us-east-1",
      oauth: undefined,
      ampEndpoint: undefined,
      plainPrometheus: false,
      sessionStore: "memory",
      sessionDir: ".local/sessions",
      sessionTable: undefined,
      dynamodbEndpoint: undefined,
      sessions: "optional",
      sessionTtlSeconds: 86_400,
      pythonCompat: false,
      allowedOrigins: [],
      maxBodyBytes: 1_048_576,
      maxResultTokens: 20_000,
      maxResultBytes: undefined,
      logLevel: "INFO",
      metrics: true,
      metricsNamespace: "PrometheusMcp",
      tracing: false,
      serviceName: "prometheus-mcp-lambda",
      inLambda: false,
      isOffline: false,
      isLocal: false,
      tools: [
        "ExecuteQuery",
        "ExecuteRangeQuery",
        "ListMetrics",
        "GetServerInfo",
        "GetAvailableWorkspaces",
        "ListLabels",
        "ListLabelValues",
        "FindSeries",
        "GetMetricMetadata",
        "GetHealthOverview",
        "ListAlerts",
        "ListRules",
        "ListSilences",
        "GetAlertHistory",
        "PlotRangeQuery",
      ],
      alertmanagerUrl: undefined,
      tenants: undefined,
    });
  });

  it("TOOLS: names and groups in tools/list order; core under PYTHON_COMPAT unless TOOLS is set; unknown names fail", () => {
    const core = [
      "ExecuteQuery",
      "ExecuteRangeQuery",
      "ListMetrics",
      "GetServerInfo",
      "GetAvailableWorkspaces",
    ];
    expect(loadConfig({ PYTHON_COMPAT: "true" }).tools).toStrictEqual(core);
    expect(loadConfig({ TOOLS: "core" }).tools).toStrictEqual(core);
    expect(loadConfig({ PYTHON_COMPAT: "true", TOOLS: "all" }).tools).toHaveLength(15);
    expect(loadConfig({ TOOLS: "charts" }).tools).toStrictEqual(["PlotRangeQuery"]);
    expect(loadConfig({ TOOLS: " alerting , ExecuteQuery,," }).tools).toStrictEqual([
      "ExecuteQuery",
      "GetHealthOverview",
      "ListAlerts",
      "ListRules",
      "ListSilences",
      "GetAlertHistory",
    ]);
    expect(loadConfig({ TOOLS: "discovery,FindSeries" }).tools).toStrictEqual([
      "ListLabels",
      "ListLabelValues",
      "FindSeries",
      "GetMetricMetadata",
    ]);
    expect(() => loadConfig({ TOOLS: "core,ListEverything" })).toThrow(
      /^Invalid configuration: TOOLS="core,ListEverything" \(expected tool names or groups, comma-separated: ListEverything is neither/,
    );
    // Names are case-sensitive, as MCP tool names are.
    expect(() => loadConfig({ TOOLS: "listalerts" })).toThrow(/listalerts is neither/);
    expect(() => loadConfig({ TOOLS: "," })).toThrow(
      /TOOLS="," \(expected at least one tool name or group\)/,
    );
    expect(loadConfig({ ALERTMANAGER_URL: "http://127.0.0.1:9093" }).alertmanagerUrl).toBe(
      "http://127.0.0.1:9093",
    );
    expect(() => loadConfig({ ALERTMANAGER_URL: "alertmanager:9093" })).toThrow(/ALERTMANAGER_URL/);
  });

  it("metrics: on or off, a CloudWatch namespace and a service name; other values fail naming the variable", () => {
    expect(
      loadConfig({ METRICS: "off", METRICS_NAMESPACE: "Team/Mcp", SERVICE_NAME: "prom-mcp" }),
    ).toMatchObject({
      metrics: false,
      metricsNamespace: "Team/Mcp",
      serviceName: "prom-mcp",
    });
    expect(() => loadConfig({ METRICS: "maybe" })).toThrow(/METRICS="maybe" \(expected on or off\)/);
    expect(() => loadConfig({ METRICS_NAMESPACE: "AWS/Lambda" })).toThrow(/METRICS_NAMESPACE/);
    expect(() => loadConfig({ SERVICE_NAME: "a\nb" })).toThrow(/SERVICE_NAME/);
  });

  it("reads every variable", () => {
    const config = loadConfig({
      PROMETHEUS_URL: "https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-1/",
      PROMETHEUS_AUTH: "none",
      ALLOWED_WORKSPACES: " ws-a, ws-b_2 ,,ws-a",
      ALLOWED_REGIONS: "eu-central-1, us-west-2,,eu-central-1",
      AWS_REGION: "eu-central-1",
      AMP_ENDPOINT: "http://127.0.0.1:9999",
      SESSION_TABLE: "sessions",
      DYNAMODB_ENDPOINT: "http://127.0.0.1:8000",
      SESSIONS: "required",
      SESSION_TTL_SECONDS: "60",
      PYTHON_COMPAT: "true",
      ALLOWED_ORIGINS: "https://a.example.com, https://b.example.com:8443/",
      MAX_BODY_BYTES: "4096",
      MAX_RESULT_BYTES: "25000",
      MAX_RESULT_TOKENS: "8000",
      LOG_LEVEL: "debug",
      AWS_LAMBDA_FUNCTION_NAME: "fn",
    });
    expect(config).toMatchObject({
      prometheusAuth: "none",
      allowedWorkspaces: ["ws-a", "ws-b_2"],
      allowedRegions: ["eu-central-1", "us-west-2"],
      awsRegion: "eu-central-1",
      sessions: "required",
      sessionTtlSeconds: 60,
      pythonCompat: true,
      allowedOrigins: ["https://a.example.com", "https://b.example.com:8443"],
      maxBodyBytes: 4096,
      maxResultBytes: 25_000,
      maxResultTokens: 8_000,
      logLevel: "DEBUG",
      inLambda: true,
    });
  });

  it("ALLOWED_WORKSPACES takes workspace ids, URLs and ARNs; ALLOWED_REGIONS gains the regions they and PROMETHEUS_URL name", () => {
    const arn = "arn:aws:aps:eu-west-1:123456789012:workspace/ws-by-arn";
    const url = "https://aps-workspaces-fips.us-west-2.amazonaws.com/workspaces/ws-by-url/";
    const config = loadConfig({
      AWS_REGION: "us-east-1",
      PROMETHEUS_URL: "https://aps-workspaces.ap-southeast-2.amazonaws.com/workspaces/ws-pinned/",
      ALLOWED_WORKSPACES: ` ws-a, ${arn} ,${url},ws-a`,
      ALLOWED_REGIONS: "us-east-1,us-west-2",
    });
    expect(config.allowedWorkspaces).toStrictEqual(["ws-a", arn, url]);
    // The list given first, then the workspaces' regions it lacks: the pinned URL's, the ARN's.
    expect(config.allowedRegions).toStrictEqual(["us-east-1", "us-west-2", "ap-southeast-2", "eu-west-1"]);
    // Unset ALLOWED_REGIONS stays unset: any region of the partition, theirs included.
    expect(loadConfig({ ALLOWED_WORKSPACES: arn }).allowedRegions).toBeUndefined();
    // A plain Prometheus URL and bare ids add no region.
    expect(
      loadConfig({
        PROMETHEUS_URL: "http://prometheus.internal:9090/workspaces/ws-x/",
        ALLOWED_WORKSPACES: "ws-b",
        ALLOWED_REGIONS: "us-east-1",
      }).allowedRegions,
    ).toStrictEqual(["us-east-1"]);
    // China: an ARN of the aws-cn partition, a .com.cn host.
    expect(
      loadConfig({
        AWS_REGION: "cn-north-1",
        PROMETHEUS_URL: "https://aps-workspaces.cn-northwest-1.amazonaws.com.cn/workspaces/ws-cn/",
        ALLOWED_WORKSPACES: "arn:aws-cn:aps:cn-north-1:123456789012:workspace/ws-cn2",
        ALLOWED_REGIONS: "cn-north-1",
      }).allowedRegions,
    ).toStrictEqual(["cn-north-1", "cn-northwest-1"]);
  });

  it("refuses workspaces in another partition than the function's, with one line naming the variable", () => {
    const cases: [Record<string, string>, RegExp][] = [
      [
        { ALLOWED_WORKSPACES: "ws-a,arn:aws-cn:aps:cn-north-1:123456789012:workspace/ws-b" },
        /^Invalid configuration: ALLOWED_WORKSPACES="ws-a,arn:aws-cn:aps:cn-north-1:123456789012:workspace\/ws-b" \(expected workspaces in the regions of the function's partition, aws: cn-north-1 is not one of them\)$/,
      ],
      [
        // The region is the partition's, the ARN's partition is not.
        { ALLOWED_WORKSPACES: "arn:aws-us-gov:aps:us-east-1:123456789012:workspace/ws-b" },
        /ALLOWED_WORKSPACES=.* \(expected ARNs of the function's partition, aws: .* is in aws-us-gov\)$/,
      ],
      [
        { PROMETHEUS_URL: "https://aps-workspaces.us-gov-west-1.amazonaws.com/workspaces/ws-gov/" },
        /^Invalid configuration: PROMETHEUS_URL=.* \(expected workspaces in the regions of the function's partition, aws: us-gov-west-1 is not one of them\)$/,
      ],
    ];
    for (const [env, message] of cases) {
      expect(() => loadConfig({ AWS_REGION: "us-east-1", ...env })).toThrow(ConfigError);
      expect(() => loadConfig({ AWS_REGION: "us-east-1", ...env })).toThrow(message);
    }
  });

  it("empty values mean unset", () => {
    expect(
      loadConfig({ PROMETHEUS_URL: "", PYTHON_COMPAT: " ", MAX_BODY_BYTES: "", MAX_RESULT_BYTES: "" }),
    ).toMatchObject({
      prometheusUrl: undefined,
      pythonCompat: false,
      maxBodyBytes: 1_048_576,
      maxResultBytes: undefined,
    });
  });

  it("serverless offline and invoke local are not 'in Lambda'", () => {
    expect(loadConfig({ AWS_LAMBDA_FUNCTION_NAME: "fn", IS_OFFLINE: "true" }).inLambda).toBe(false);
    expect(loadConfig({ AWS_LAMBDA_FUNCTION_NAME: "fn", IS_LOCAL: "true" }).inLambda).toBe(false);
  });

  it.each([
    ["PROMETHEUS_URL", "not a url"],
    ["PROMETHEUS_URL", "ftp://x"],
    ["PROMETHEUS_AUTH", "digest"],
    ["AWS_REGION", "mars"],
    ["AMP_ENDPOINT", "nope"],
    ["SESSIONS", "maybe"],
    ["SESSION_TTL_SECONDS", "-5"],
    ["SESSION_TTL_SECONDS", "1.5"],
    ["PYTHON_COMPAT", "sometimes"],
    ["ALLOWED_ORIGINS", "not an origin"],
    ["MAX_BODY_BYTES", "0"],
    ["MAX_BODY_BYTES", "10MB"],
    ["MAX_RESULT_BYTES", "999"],
    ["MAX_RESULT_BYTES", "6000001"],
    ["MAX_RESULT_BYTES", "100k"],
    ["MAX_RESULT_TOKENS", "999"],
    ["MAX_RESULT_TOKENS", "20k"],
    ["MAX_RESULT_TOKENS", "6000001"],
    ["LOG_LEVEL", "LOUD"],
    ["ALLOWED_WORKSPACES", "ws-a,team-b"],
    ["ALLOWED_WORKSPACES", "ws-a ws-b"],
    // A URL must be AMP's (its host says the region) and name a workspace; an ARN a workspace's.
    ["ALLOWED_WORKSPACES", "https://prometheus.example.com/workspaces/ws-a/"],
    ["ALLOWED_WORKSPACES", "https://aps-workspaces.eu-west-1.amazonaws.com/"],
    ["ALLOWED_WORKSPACES", "aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-a/"],
    ["ALLOWED_WORKSPACES", "arn:aws:aps:eu-west-1:1234:workspace/ws-a"],
    ["ALLOWED_WORKSPACES", "arn:aws:aps:eu-west-1:123456789012:rulegroupsnamespace/ws-a/rules"],
    ["ALLOWED_WORKSPACES", "arn:aws:aps:mars:123456789012:workspace/ws-a"],
    ["ALLOWED_REGIONS", "us-east-1,Mars"],
    // Calls that name no region use AWS_REGION (us-east-1 here), so the list must hold it.
    ["ALLOWED_REGIONS", "eu-west-1"],
    // The authorizer compares `iss` exactly: Cognito's issuer has no trailing slash.
    ["JWT_ISSUER", "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_AbC/"],
    ["JWT_ISSUER", "cognito"],
    ["JWT_SCOPES", "mcp/read"],
  ])("a bad %s (%s) fails with one line naming the variable", (name, value) => {
    let error: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain(name);
    expect(message).toContain(JSON.stringify(value));
    expect(message).not.toContain("\n");
  });

  it("never quotes the user:password of a URL in its error line", () => {
    for (const env of [
      { PROMETHEUS_URL: "ftp://admin:hunter2@prometheus.example.com/" },
      { AMP_ENDPOINT: "https://admin:hunter2@" },
      // SigV4 signs the Authorization header: basic credentials cannot go with it.
      { PROMETHEUS_URL: "https://admin:hunter2@aps-workspaces.us-east-1.amazonaws.com/workspaces/ws-1/" },
    ]) {
      expect(() => loadConfig(env)).toThrow(ConfigError);
      try {
        loadConfig(env);
      } catch (error) {
        const message = (error as Error).message;
        expect(message).toContain(Object.keys(env)[0] as string);
        expect(message).not.toContain("hunter2");
        expect(message).not.toContain("admin");
      }
    }
    expect(() =>
      loadConfig({
        PROMETHEUS_URL: "https://admin:hunter2@prometheus.example.com/",
        PROMETHEUS_AUTH: "none",
      }),
    ).not.toThrow();
  });

  it("a cold start with a bad value fails with the one-line error as its whole stack", () => {
    let error: unknown;
    try {
      configFromEnvironment({ SESSIONS: "maybe" });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const { message, stack } = error as Error;
    expect(message).toContain("SESSIONS");
    expect(stack).toBe(`ConfigError: ${message}`);
  });
});
