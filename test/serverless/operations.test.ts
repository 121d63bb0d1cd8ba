import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyService, runSls, type SlsRun } from "./sls.js";

/**
 * The operations side of `serverless package` (offline): alarms, the dashboard, HTTP API access logs
 * and throttling, reserved concurrency, tracing, and the metric settings passed to the function. Each
 * variant is packaged once; its template is then evaluated as CloudFormation would evaluate it
 * (conditions, Fn::If, Fn::Sub, AWS::NoValue) so the tests see what a deployment would create.
 */

type Json = Record<string, unknown>;
interface Resource {
  Type: string;
  Condition?: string;
  Properties: Json;
}
interface Template {
  Resources: Record<string, Resource>;
  Conditions?: Record<string, unknown>;
}

/** What the function emits (EMF), by dimension set. */
const PER_REQUEST = ["ServerErrors", "Timeouts", "StoreFailures", "Rehydrations", "ColdStart"];
const PER_TOOL = [
  "ToolCalls",
  "ToolErrors",
  "ToolLatency",
  "ResultBytes",
  "Truncations",
  "UpstreamAttempts",
  "UpstreamRetries",
];
const CUSTOM_METRICS = ["Requests", ...PER_REQUEST, ...PER_TOOL];

/** The application settings this file's variants depend on: the shell must not set them for these tests. */
const OPERATIONS_SETTINGS = ["METRICS_NAMESPACE", "SERVICE_NAME", "METRICS", "TRACING"] as const;

/**
 * The `$context` variables HTTP API access logs support (API Gateway developer guide, "Customize HTTP
 * API access logs"); REST-only ones such as $context.identity.apiKey would log nothing.
 */
const HTTP_API_LOG_VARIABLES = new Set([
  "$context.accountId",
  "$context.apiId",
  "$context.authorizer.error",
  "$context.awsEndpointRequestId",
  "$context.dataProcessed",
  "$context.domainName",
  "$context.error.message",
  "$context.error.responseType",
  "$context.extendedRequestId",
  "$context.httpMethod",
  "$context.identity.accountId",
  "$context.identity.caller",
  "$context.identity.sourceIp",
  "$context.identity.user",
  "$context.identity.userAgent",
  "$context.identity.userArn",
  "$context.integrationErrorMessage",
  "$context.integrationLatency",
  "$context.integrationStatus",
  "$context.path",
  "$context.protocol",
  "$context.requestId",
  "$context.requestTime",
  "$context.requestTimeEpoch",
  "$context.responseLatency",
  "$context.responseLength",
  "$context.routeKey",
  "$context.stage",
  "$context.status",
]);

const REGION = "us-east-1";
const ACCOUNT = "123456789012";
const TOPIC = `arn:aws:sns:${REGION}:${ACCOUNT}:prometheus-mcp-alerts`;

const saved = new Map<string, string | undefined>();
let service: { dir: string; dispose(): Promise<void> };

beforeAll(async () => {
  for (const name of OPERATIONS_SETTINGS) {
    saved.set(name, process.env[name]);
    delete process.env[name];
  }
  service = await copyService();
}, 60_000);

afterAll(async () => {
  await service?.dispose();
  for (const [name, value] of saved) if (value !== undefined) process.env[name] = value;
});

async function packageVariant(name: string, args: string[]): Promise<{ run: SlsRun; template?: Template }> {
  const dir = join(service.dir, name);
  const run = await runSls(["package", "--package", dir, ...args], { cwd: service.dir });
  if (run.code !== 0) return { run };
  const text = await readFile(join(dir, "cloudformation-template-update-stack.json"), "utf8");
  return { run, template: JSON.parse(text) as Template };
}

function output(run: SlsRun): string {
  return `exit ${run.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const NO_VALUE = Symbol("AWS::NoValue");
const PSEUDO: Record<string, string> = {
  "AWS::Region": REGION,
  "AWS::AccountId": ACCOUNT,
  "AWS::Partition": "aws",
  "AWS::URLSuffix": "amazonaws.com",
  "AWS::StackName": "stack",
};

/**
 * The resources a stack from `template` would have (those whose Condition holds), their properties
 * evaluated: conditions, Fn::If, Fn::Equals, Fn::Not, Fn::Or, Fn::Sub, Fn::Join, AWS::NoValue. A Ref is the
 * resource's logical id in angle brackets, Fn::GetAtt `<id.Attribute>`. A Ref, GetAtt or `${…}`
 * naming no resource of the stack (a missing or conditioned-out one) throws, as CloudFormation refuses.
 */
function deploy(template: Template): Map<string, Resource> {
  const conditionValues = new Map<string, boolean>();
  const condition = (name: string): boolean => {
    if (!conditionValues.has(name)) {
      const definition = template.Conditions?.[name];
      if (definition === undefined) throw new Error(`no condition ${name}`);
      conditionValues.set(name, evaluate(definition) === true);
    }
    return conditionValues.get(name) as boolean;
  };
  const exists = (id: string) => {
    const resource = template.Resources[id];
    if (resource === undefined) throw new Error(`no resource ${id}`);
    if (resource.Condition !== undefined && !condition(resource.Condition)) {
      throw new Error(`${id} is not created (condition ${resource.Condition})`);
    }
  };
  const ref = (name: string): string => {
    if (name in PSEUDO) return PSEUDO[name] as string;
    exists(name);
    return `<${name}>`;
  };
  const getAtt = (id: string, attribute: string): string => {
    exists(id);
    return `<${id}.${attribute}>`;
  };
  function evaluate(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(evaluate).filter((entry) => entry !== NO_VALUE);
    if (!isObject(value)) return value;
    const keys = Object.keys(value);
    const [key] = keys;
    if (keys.length === 1 && key !== undefined && (key === "Ref" || key.startsWith("Fn::"))) {
      const argument = value[key] as never;
      switch (key) {
        case "Ref":
          return argument === "AWS::NoValue" ? NO_VALUE : ref(argument);
        case "Fn::GetAtt": {
          const [id, attribute] = argument as [string, string];
          return getAtt(id, attribute);
        }
        case "Fn::If": {
          const [name, yes, no] = argument as [string, unknown, unknown];
          return condition(name) ? evaluate(yes) : evaluate(no);
        }
        case "Fn::Equals": {
          const [left, right] = argument as [unknown, unknown];
          return evaluate(left) === evaluate(right);
        }
        case "Fn::Not":
          return !(evaluate((argument as [unknown])[0]) as boolean);
        case "Fn::Or":
          return (argument as unknown[]).some((entry) => evaluate(entry) === true);
        case "Fn::Join": {
          const [separator, parts] = argument as [string, unknown[]];
          return (evaluate(parts) as unknown[]).join(separator);
        }
        case "Fn::Sub": {
          const [text, variables] =
            typeof argument === "string" ? [argument, {}] : (argument as [string, Json]);
          const values = evaluate(variables) as Json;
          return text.replace(/\$\{([^}]+)\}/g, (_, name: string) => {
            if (name in values) return String(values[name]);
            const [id, attribute] = name.split(".");
            return attribute === undefined ? ref(name) : getAtt(id as string, attribute);
          });
        }
        default:
          throw new Error(`unsupported intrinsic ${key}`);
      }
    }
    return Object.fromEntries(
      Object.entries(value)
        .map(([name, entry]) => [name, evaluate(entry)] as const)
        .filter(([, entry]) => entry !== NO_VALUE),
    );
  }
  const stack = new Map<string, Resource>();
  for (const [id, resource] of Object.entries(template.Resources)) {
    if (resource.Condition !== undefined && !condition(resource.Condition)) continue;
    stack.set(id, { Type: resource.Type, Properties: evaluate(resource.Properties ?? {}) as Json });
  }
  return stack;
}

function ofType(stack: Map<string, Resource>, type: string): Resource[] {
  return [...stack.values()].filter((resource) => resource.Type === type);
}

function only(stack: Map<string, Resource>, type: string): Json {
  const resources = ofType(stack, type);
  expect(resources, type).toHaveLength(1);
  return (resources[0] as Resource).Properties;
}

/** The stack's log groups' properties, by name. */
function logGroupsOf(stack: Map<string, Resource>): Map<string, Json> {
  return new Map(
    ofType(stack, "AWS::Logs::LogGroup").map((group) => [
      String(group.Properties.LogGroupName),
      group.Properties,
    ]),
  );
}

function alarms(stack: Map<string, Resource>): Map<string, Json> {
  return new Map(
    ofType(stack, "AWS::CloudWatch::Alarm").map((alarm) => [
      String(alarm.Properties.AlarmName),
      alarm.Properties,
    ]),
  );
}

function alarmIds(stack: Map<string, Resource>): string[] {
  return [...stack.entries()]
    .filter(([, resource]) => resource.Type === "AWS::CloudWatch::Alarm")
    .map(([id]) => id)
    .sort();
}

interface Widget {
  type: string;
  properties: { title: string; region?: string; alarms?: string[]; metrics?: unknown[][] };
}

/** The dashboard's name and its body, parsed (it must be JSON once CloudFormation has substituted it). */
function dashboard(stack: Map<string, Resource>): { name: string; widgets: Widget[] } {
  const properties = only(stack, "AWS::CloudWatch::Dashboard");
  const body = properties.DashboardBody as string;
  expect(body).not.toContain("${");
  return {
    name: String(properties.DashboardName),
    widgets: (JSON.parse(body) as { widgets: Widget[] }).widgets,
  };
}

interface MetricReference {
  namespace: string;
  name: string;
  /** Dimension names (a SEARCH schema's, or a metric's) and the values given. */
  dimensions: Record<string, string | null>;
  stat?: string;
  widget: string;
}

/** Every metric a dashboard's graphs read: plain metric entries and SEARCH expressions. */
function metricReferences(widgets: Widget[]): MetricReference[] {
  const references: MetricReference[] = [];
  for (const widget of widgets) {
    for (const entry of widget.properties.metrics ?? []) {
      const last = entry[entry.length - 1];
      const options = (isObject(last) ? last : {}) as { expression?: string; stat?: string };
      if (options.expression !== undefined) {
        for (const match of options.expression.matchAll(
          /SEARCH\('\{([^}]*)\} MetricName="([^"]+)"((?: \w+="[^"]*")*)', '([^']+)', \d+\)/g,
        )) {
          const [, schema = "", name = "", terms = "", stat] = match;
          const [namespace = "", ...dimensionNames] = schema
            .split(",")
            .map((part) => part.replace(/^"|"$/g, ""));
          const dimensions: Record<string, string | null> = Object.fromEntries(
            dimensionNames.map((dimension) => [dimension, null]),
          );
          for (const [, dimension = "", value = ""] of terms.matchAll(/ (\w+)="([^"]*)"/g)) {
            expect(dimensionNames, `${widget.properties.title}: ${dimension} in the schema`).toContain(
              dimension,
            );
            dimensions[dimension] = value;
          }
          references.push({ namespace, name, dimensions, stat, widget: widget.properties.title });
        }
        continue;
      }
      const strings = entry.filter((part): part is string => typeof part === "string");
      const [namespace = "", name = "", ...pairs] = strings;
      const dimensions: Record<string, string | null> = {};
      for (let i = 0; i + 1 < pairs.length; i += 2) dimensions[pairs[i] as string] = pairs[i + 1] as string;
      references.push({ namespace, name, dimensions, stat: options.stat, widget: widget.properties.title });
    }
  }
  return references;
}

/**
 * The dashboard graphs every metric the function emits, in `namespace` for `serviceName`, over the
 * dimension sets it emits them with; and the function's Lambda metrics.
 */
function expectDashboardReads(widgets: Widget[], namespace: string, serviceName: string) {
  const references = metricReferences(widgets);
  const custom = references.filter((reference) => !reference.namespace.startsWith("AWS/"));
  expect(new Set(custom.map((reference) => reference.name))).toEqual(new Set(CUSTOM_METRICS));
  for (const reference of custom) {
    expect(reference.namespace, reference.widget).toBe(namespace);
    expect(reference.dimensions.service, reference.widget).toBe(serviceName);
    const names = Object.keys(reference.dimensions).sort();
    if (PER_TOOL.includes(reference.name)) expect(names, reference.widget).toEqual(["service", "tool"]);
    if (PER_REQUEST.includes(reference.name)) expect(names, reference.widget).toEqual(["service"]);
    if (reference.name === "Requests") {
      expect([
        ["route", "service", "status_class"],
        ["era", "service"],
      ]).toContainEqual(names);
    }
  }
  // Requests by status class: one line per class, over every route.
  const byClass = custom.filter(
    (reference) => reference.name === "Requests" && "status_class" in reference.dimensions,
  );
  expect(byClass.map((reference) => reference.dimensions.status_class).sort()).toEqual(["2xx", "4xx", "5xx"]);
  expect(byClass.every((reference) => reference.dimensions.route === null)).toBe(true);
  // Per-tool latency at p50 and p99 (SEARCH over the tool dimension: one line per tool).
  const latency = custom.filter((reference) => reference.name === "ToolLatency");
  expect(latency.map((reference) => reference.stat).sort()).toEqual(["p50", "p99"]);
  expect(latency.every((reference) => reference.dimensions.tool === null)).toBe(true);

  const lambda = references.filter((reference) => reference.namespace === "AWS/Lambda");
  expect(new Set(lambda.map((reference) => reference.name))).toEqual(
    new Set(["Duration", "Invocations", "Errors", "Throttles", "ConcurrentExecutions"]),
  );
  for (const reference of lambda)
    expect(reference.dimensions).toEqual({ FunctionName: "<McpLambdaFunction>" });
  expect(
    lambda.filter((reference) => reference.name === "Duration").map((reference) => reference.stat),
  ).toEqual(expect.arrayContaining(["p50", "p99"]));
  for (const widget of widgets) {
    if (widget.type === "metric") expect(widget.properties.region, widget.properties.title).toBe(REGION);
  }
}

function environment(stack: Map<string, Resource>): Json {
  const properties = only(stack, "AWS::Lambda::Function");
  return (properties.Environment as { Variables: Json }).Variables;
}

function xrayActions(stack: Map<string, Resource>): string[] {
  const role = only(stack, "AWS::IAM::Role");
  const statements = (
    role.Policies as { PolicyDocument: { Statement: { Action: string | string[] }[] } }[]
  ).flatMap((policy) => policy.PolicyDocument.Statement);
  return statements
    .flatMap((statement) => [statement.Action].flat())
    .filter((action) => action.startsWith("xray:"));
}

describe("serverless package: operations with the default parameters", () => {
  let stack: Map<string, Resource>;

  beforeAll(async () => {
    const { run, template } = await packageVariant("ops-default", []);
    expect(run.code, output(run)).toBe(0);
    console.log(`package (defaults): ${run.ms} ms`);
    stack = deploy(template as Template);
  }, 180_000);

  it("alarms on the function's errors, throttles and p99 duration near its timeout, and on ServerErrors; no actions", () => {
    const byName = alarms(stack);
    expect([...byName.keys()].sort()).toEqual([
      "prometheus-mcp-lambda-dev-lambda-duration",
      "prometheus-mcp-lambda-dev-lambda-errors",
      "prometheus-mcp-lambda-dev-lambda-throttles",
      "prometheus-mcp-lambda-dev-server-errors",
    ]);
    const functionDimension = [{ Name: "FunctionName", Value: "<McpLambdaFunction>" }];
    expect(byName.get("prometheus-mcp-lambda-dev-lambda-errors")).toMatchObject({
      Namespace: "AWS/Lambda",
      MetricName: "Errors",
      Dimensions: functionDimension,
      Statistic: "Sum",
      Threshold: 1,
      ComparisonOperator: "GreaterThanOrEqualToThreshold",
    });
    expect(byName.get("prometheus-mcp-lambda-dev-lambda-throttles")).toMatchObject({
      Namespace: "AWS/Lambda",
      MetricName: "Throttles",
      Dimensions: functionDimension,
      Statistic: "Sum",
      Threshold: 1,
      ComparisonOperator: "GreaterThanOrEqualToThreshold",
    });
    expect(byName.get("prometheus-mcp-lambda-dev-server-errors")).toMatchObject({
      Namespace: "PrometheusMcp",
      MetricName: "ServerErrors",
      Dimensions: [{ Name: "service", Value: "prometheus-mcp-lambda" }],
      Statistic: "Sum",
      ComparisonOperator: "GreaterThanOrEqualToThreshold",
    });

    // p99 Duration as a percentage of the function's own timeout, over 80 %.
    const timeout = only(stack, "AWS::Lambda::Function").Timeout as number;
    const duration = byName.get("prometheus-mcp-lambda-dev-lambda-duration") as Json;
    expect(duration).toMatchObject({ Threshold: 80, ComparisonOperator: "GreaterThanThreshold" });
    const [stat, percent] = duration.Metrics as Json[];
    expect(stat).toMatchObject({
      MetricStat: {
        Metric: { Namespace: "AWS/Lambda", MetricName: "Duration", Dimensions: functionDimension },
        Stat: "p99",
      },
      ReturnData: false,
    });
    expect(percent).toMatchObject({
      Expression: `100 * ${stat?.Id} / (${timeout} * 1000)`,
      ReturnData: true,
    });

    for (const [name, alarm] of byName) {
      expect(alarm.TreatMissingData, name).toBe("notBreaching");
      expect(alarm.AlarmActions, name).toBeUndefined();
      expect(alarm.OKActions, name).toBeUndefined();
      expect(alarm.InsufficientDataActions, name).toBeUndefined();
    }
  });

  it("builds a dashboard whose body is JSON graphing every metric of the function, and shows the alarms", () => {
    const { name, widgets } = dashboard(stack);
    expect(name).toBe("prometheus-mcp-lambda-dev");
    expectDashboardReads(widgets, "PrometheusMcp", "prometheus-mcp-lambda");
    const alarmWidgets = widgets.filter((widget) => widget.type === "alarm");
    expect(alarmWidgets).toHaveLength(1);
    expect(alarmWidgets[0]?.properties.alarms?.sort()).toEqual(alarmIds(stack).map((id) => `<${id}.Arn>`));
  });

  it("throttles the HTTP API stage at 50 requests/s (burst 100) and logs each request as JSON, kept as long as the function's logs", () => {
    const stage = only(stack, "AWS::ApiGatewayV2::Stage");
    const routeSettings = stage.DefaultRouteSettings as Json;
    expect(Number(routeSettings.ThrottlingRateLimit)).toBe(50);
    expect(Number(routeSettings.ThrottlingBurstLimit)).toBe(100);

    const logs = stage.AccessLogSettings as { DestinationArn: string; Format: string };
    expect(logs.DestinationArn).toBe("<HttpApiLogGroup.Arn>");
    const groups = logGroupsOf(stack);
    const accessLogs = groups.get("/aws/http-api/prometheus-mcp-lambda-dev");
    const functionLogs = groups.get("/aws/lambda/prometheus-mcp-lambda-dev-mcp");
    expect(accessLogs?.RetentionInDays).toBeGreaterThan(0);
    expect(accessLogs?.RetentionInDays).toBe(functionLogs?.RetentionInDays);

    const format = JSON.parse(logs.Format) as Record<string, string>;
    expect(format).toMatchObject({
      requestId: "$context.requestId",
      userArn: "$context.identity.userArn",
      jwtSub: "$context.authorizer.claims.sub",
      routeKey: "$context.routeKey",
      status: "$context.status",
      responseLatency: "$context.responseLatency",
      integrationLatency: "$context.integrationLatency",
      integrationErrorMessage: "$context.integrationErrorMessage",
    });
    for (const [field, variable] of Object.entries(format)) {
      expect(
        HTTP_API_LOG_VARIABLES.has(variable) || variable.startsWith("$context.authorizer.claims."),
        field,
      ).toBe(true);
    }
  });

  it("sets no reserved concurrency and no tracing, and passes the metric settings to the function", () => {
    const properties = only(stack, "AWS::Lambda::Function");
    expect(properties.ReservedConcurrentExecutions).toBeUndefined();
    expect(properties.TracingConfig).toBeUndefined();
    expect(xrayActions(stack)).toEqual([]);
    expect(environment(stack)).toMatchObject({
      METRICS_NAMESPACE: "PrometheusMcp",
      SERVICE_NAME: "prometheus-mcp-lambda",
      METRICS: "on",
      TRACING: "off",
    });
  });
});

describe("serverless package: operations with every parameter set (stage prod)", () => {
  let stack: Map<string, Resource>;

  beforeAll(async () => {
    const { run, template } = await packageVariant("ops-all", [
      "--stage",
      "prod",
      `--param=alarmTopicArn=${TOPIC}`,
      "--param=metrics=off",
      "--param=metricsNamespace=Team/Mcp",
      "--param=serviceName=prometheus-mcp-prod",
      "--param=tracing=on",
      "--param=reservedConcurrency=10",
      "--param=throttleRateLimit=5",
      "--param=throttleBurstLimit=20",
    ]);
    expect(run.code, output(run)).toBe(0);
    console.log(`package (every parameter): ${run.ms} ms`);
    stack = deploy(template as Template);
  }, 180_000);

  it("points every alarm's ALARM and OK actions at the topic; metrics=off drops the ServerErrors alarm", () => {
    const byName = alarms(stack);
    expect([...byName.keys()].sort()).toEqual([
      "prometheus-mcp-lambda-prod-lambda-duration",
      "prometheus-mcp-lambda-prod-lambda-errors",
      "prometheus-mcp-lambda-prod-lambda-throttles",
    ]);
    for (const [name, alarm] of byName) {
      expect(alarm.AlarmActions, name).toEqual([TOPIC]);
      expect(alarm.OKActions, name).toEqual([TOPIC]);
    }
  });

  it("keeps the dashboard valid without the ServerErrors alarm, reading the namespace and service given", () => {
    const { name, widgets } = dashboard(stack);
    expect(name).toBe("prometheus-mcp-lambda-prod");
    expectDashboardReads(widgets, "Team/Mcp", "prometheus-mcp-prod");
    const alarmWidget = widgets.find((widget) => widget.type === "alarm");
    expect(alarmWidget?.properties.alarms?.sort()).toEqual(alarmIds(stack).map((id) => `<${id}.Arn>`));
    expect(alarmWidget?.properties.alarms).toHaveLength(3);
  });

  it("throttles the stage and reserves concurrency as given; the access logs follow the stage", () => {
    const stage = only(stack, "AWS::ApiGatewayV2::Stage");
    const routeSettings = stage.DefaultRouteSettings as Json;
    expect(Number(routeSettings.ThrottlingRateLimit)).toBe(5);
    expect(Number(routeSettings.ThrottlingBurstLimit)).toBe(20);
    expect(only(stack, "AWS::Lambda::Function").ReservedConcurrentExecutions).toBe(10);
    const groups = ofType(stack, "AWS::Logs::LogGroup").map((group) => group.Properties.LogGroupName);
    expect(groups).toContain("/aws/http-api/prometheus-mcp-lambda-prod");
  });

  it("tracing=on: X-Ray active tracing on the function and its xray: grant (HTTP APIs have no tracing); TRACING, METRICS and the names reach the function", () => {
    const properties = only(stack, "AWS::Lambda::Function");
    expect(properties.TracingConfig).toEqual({ Mode: "Active" });
    expect(xrayActions(stack).sort()).toEqual(["xray:PutTelemetryRecords", "xray:PutTraceSegments"]);
    expect(JSON.stringify(only(stack, "AWS::ApiGatewayV2::Stage"))).not.toMatch(/tracing/i);
    expect(environment(stack)).toMatchObject({
      METRICS_NAMESPACE: "Team/Mcp",
      SERVICE_NAME: "prometheus-mcp-prod",
      METRICS: "off",
      TRACING: "on",
    });
  });
});

describe("serverless package: operations with frontDoor=streaming (REST API, stage prod)", () => {
  let stack: Map<string, Resource>;

  beforeAll(async () => {
    const { run, template } = await packageVariant("ops-streaming", [
      "--stage",
      "prod",
      "--param=frontDoor=streaming",
      "--param=tracing=on",
      "--param=throttleRateLimit=7",
      "--param=throttleBurstLimit=9",
    ]);
    expect(run.code, output(run)).toBe(0);
    stack = deploy(template as Template);
  }, 180_000);

  it("graphs the REST API's requests, 4XXError and 5XXError by its name and stage, and no HTTP API", () => {
    const { widgets } = dashboard(stack);
    expectDashboardReads(widgets, "PrometheusMcp", "prometheus-mcp-lambda");
    const gateway = metricReferences(widgets).filter((reference) => reference.namespace === "AWS/ApiGateway");
    expect(gateway.map((reference) => reference.name)).toEqual(["Count", "4XXError", "5XXError"]);
    for (const reference of gateway) {
      expect(reference.dimensions).toEqual({ ApiName: "prod-prometheus-mcp-lambda", Stage: "prod" });
    }
    const api = only(stack, "AWS::ApiGateway::RestApi");
    expect(api.Name).toBe("prod-prometheus-mcp-lambda");
    expect(api.EndpointConfiguration).toEqual({ Types: ["REGIONAL"] });
    expect(ofType(stack, "AWS::ApiGatewayV2::Api")).toEqual([]);
  });

  it("throttles every method of its stage, traces it, and logs each request as JSON, kept as long as the function's logs", () => {
    const stage = only(stack, "AWS::ApiGateway::Stage");
    expect(stage).toMatchObject({
      RestApiId: "<ApiGatewayRestApi>",
      StageName: "prod",
      TracingEnabled: true,
      MethodSettings: [
        { ResourcePath: "/*", HttpMethod: "*", ThrottlingRateLimit: 7, ThrottlingBurstLimit: 9 },
      ],
    });
    // The deployment no longer makes a stage of its own (two would collide on the name).
    const [deployment] = ofType(stack, "AWS::ApiGateway::Deployment");
    expect(deployment?.Properties.StageName).toBeUndefined();
    expect(stage.DeploymentId).toMatch(/^<ApiGatewayDeployment\d+>$/);

    const logs = stage.AccessLogSetting as { DestinationArn: string; Format: string };
    expect(logs.DestinationArn).toBe("<RestApiAccessLogGroup.Arn>");
    const groups = logGroupsOf(stack);
    const accessLogs = groups.get("/aws/api-gateway/prometheus-mcp-lambda-prod");
    expect(accessLogs?.RetentionInDays).toBeGreaterThan(0);
    expect(accessLogs?.RetentionInDays).toBe(
      groups.get("/aws/lambda/prometheus-mcp-lambda-prod-mcp")?.RetentionInDays,
    );
    expect(JSON.parse(logs.Format)).toMatchObject({
      requestId: "$context.requestId",
      userArn: "$context.identity.userArn",
      resourcePath: "$context.resourcePath",
      status: "$context.status",
      integrationLatency: "$context.integration.latency",
    });
  });
});

describe("serverless package: operations parameters it refuses", () => {
  it("metrics and tracing other than on | off, and a reserved concurrency that is not a number", async () => {
    const switches = await packageVariant("ops-bad-switches", [
      "--param=metrics=maybe",
      "--param=tracing=yes",
    ]);
    expect(switches.run.code).not.toBe(0);
    const said = `${switches.run.stdout}${switches.run.stderr}`;
    expect(said).toContain("provider.environment.METRICS");
    expect(said).toContain("provider.tracing.lambda");

    const concurrency = await packageVariant("ops-bad-concurrency", ["--param=reservedConcurrency=lots"]);
    expect(concurrency.run.code).not.toBe(0);
    expect(`${concurrency.run.stdout}${concurrency.run.stderr}`).toContain(
      "functions.mcp.reservedConcurrency",
    );
    console.log(`refusals: ${switches.run.ms} ms, ${concurrency.run.ms} ms`);
  }, 120_000);

  it("an alarm topic that is not an SNS topic ARN, in one line", async () => {
    const topic = await packageVariant("ops-bad-topic", ["--param=alarmTopicArn=oncall-team"]);
    expect(topic.run.code).not.toBe(0);
    expect(`${topic.run.stdout}${topic.run.stderr}`).toContain(
      'alarmTopicArn: "oncall-team" is not an SNS topic ARN',
    );
  }, 120_000);
});
