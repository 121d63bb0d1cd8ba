import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import * as esbuild from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildRangeView } from "../../scripts/view-build.mjs";
import { CORS_PREFLIGHT_HEADERS } from "../../src/http/responses.js";
import { type Finished, runToEnd } from "../support/childProcess.js";
import { startFaultServer, successBody } from "../support/faultServer.js";
import { callHttp, makeHandler } from "../support/handler.js";
import { cfnLint, cfnLintAvailable } from "./cfnLint.js";
import { copyService, ROOT, runSls, type SlsRun } from "./sls.js";
import { readZip } from "./zip.js";

/** `serverless package` (offline) and the CloudFormation template and artifact it produces. */

type Json = Record<string, unknown>;
interface Resource {
  Type: string;
  Properties: Json;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}
interface Template {
  Resources: Record<string, Resource>;
  Outputs: Record<string, { Value: unknown }>;
}
interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
}

/**
 * The aps actions with a statement of their own: ListWorkspaces (alone on "*"), DescribeWorkspace (every
 * workspace). Every other aps action reads a workspace's data.
 */
const APS_OWN_STATEMENT = ["aps:ListWorkspaces", "aps:DescribeWorkspace"];
/**
 * The aps actions that read a workspace's data, as every tool (the default, tools=all) calls them: granted
 * only on the workspaces a deployment may read. Written out, not taken from tools/catalog.json.
 */
const APS_DATA_ACTIONS = [
  "aps:GetLabels",
  "aps:GetMetricMetadata",
  "aps:GetSeries",
  "aps:ListAlertManagerAlerts",
  "aps:ListAlertManagerSilences",
  "aps:ListAlerts",
  "aps:ListRules",
  "aps:QueryMetrics",
];
/**
 * Exactly what the tools call (by default all of them): ListWorkspaces, DescribeWorkspace, queries
 * (QueryMetrics), label names and values (GetLabels), series (GetSeries), metric metadata
 * (GetMetricMetadata), rules (ListRules), alerts (ListAlerts), Alertmanager silences (ListAlertManagerSilences)
 * and alerts (ListAlertManagerAlerts, which ListAlerts reads too).
 */
const APS_ACTIONS = [
  "aps:DescribeWorkspace",
  "aps:GetLabels",
  "aps:GetMetricMetadata",
  "aps:GetSeries",
  "aps:ListAlertManagerAlerts",
  "aps:ListAlertManagerSilences",
  "aps:ListAlerts",
  "aps:ListRules",
  "aps:ListWorkspaces",
  "aps:QueryMetrics",
];
/** Single-item access to the sessions table: no Scan, no Query, no table administration. */
const DYNAMODB_ACTIONS = [
  "dynamodb:DeleteItem",
  "dynamodb:GetItem",
  "dynamodb:PutItem",
  "dynamodb:UpdateItem",
];
/** What the framework itself grants the function: writing its own log group. */
const FRAMEWORK_LOG_ACTIONS = [
  "logs:CreateLogGroup",
  "logs:CreateLogStream",
  "logs:PutLogEvents",
  "logs:TagResource",
];
/** The request headers MCP clients send, of every protocol revision served. */
const CORS_HEADERS = [
  "Content-Type",
  "Accept",
  "Authorization",
  "Mcp-Session-Id",
  "MCP-Protocol-Version",
  "Mcp-Method",
  "Mcp-Name",
  "Last-Event-ID",
  // What a browser that signs its requests with SigV4 sends besides Authorization.
  "X-Amz-Date",
  "X-Amz-Security-Token",
  "X-Amz-Content-Sha256",
];
const MB = 1024 * 1024;
/** Every route of the HTTP API: /mcp, and the public health check and OAuth protected resource metadata. */
const ROUTE_KEYS = [
  "DELETE /mcp",
  "GET /.well-known/oauth-protected-resource",
  "GET /.well-known/oauth-protected-resource/mcp",
  "GET /health",
  "GET /mcp",
  "POST /mcp",
];
const PUBLIC_ROUTES = [
  "GET /health",
  "GET /.well-known/oauth-protected-resource",
  "GET /.well-known/oauth-protected-resource/mcp",
];

let service: { dir: string; dispose(): Promise<void> };

beforeAll(async () => {
  service = await copyService();
}, 60_000);

afterAll(async () => {
  await service?.dispose();
});

/** TOOLS and ALERTMANAGER_URL of the calling shell must not reach the package either (see slsEnv). */
const NO_SHELL_TOOLS = {
  TOOLS: "",
  ALERTMANAGER_URL: "",
  PROMETHEUS_SECRET: "",
  PROMETHEUS_HEADERS: "",
  TENANT_CLAIM: "",
  TENANT_HEADER: "",
  ALLOWED_TENANTS: "",
  BACKENDS: "",
  PROMETHEUS_KIND: "",
};

async function packageTo(
  name: string,
  params: string[] = [],
  env: Record<string, string> = {},
): Promise<{ run: SlsRun; dir: string }> {
  const dir = join(service.dir, name);
  const run = await runSls(["package", "--package", dir, ...params.map((param) => `--param=${param}`)], {
    cwd: service.dir,
    env: { ...NO_SHELL_TOOLS, ...env },
  });
  return { run, dir };
}

async function templateIn(dir: string): Promise<Template> {
  return JSON.parse(
    await readFile(join(dir, "cloudformation-template-update-stack.json"), "utf8"),
  ) as Template;
}

function resourcesOf(template: Template, type: string): Resource[] {
  return Object.values(template.Resources).filter((resource) => resource.Type === type);
}

function routes(template: Template): Map<string, Json> {
  return new Map(
    resourcesOf(template, "AWS::ApiGatewayV2::Route").map((route) => [
      String(route.Properties.RouteKey),
      route.Properties,
    ]),
  );
}

function functionEnvironment(template: Template): Json {
  const properties = resourcesOf(template, "AWS::Lambda::Function")[0]?.Properties ?? {};
  return (properties.Environment as { Variables: Json }).Variables;
}

function roleStatements(template: Template): Statement[] {
  const roles = resourcesOf(template, "AWS::IAM::Role");
  expect(roles).toHaveLength(1);
  const policies = (roles[0]?.Properties.Policies ?? []) as { PolicyDocument: { Statement: Statement[] } }[];
  return policies.flatMap((policy) => policy.PolicyDocument.Statement);
}

function isStar(resource: unknown): boolean {
  return [resource].flat().some((entry) => entry === "*");
}

/**
 * The logical id of the one sessions table, after checking its definition: named by CloudFormation (so
 * a replacing update cannot collide with the old table's name), deleted with the stack and on replacement.
 */
function expectSessionsTable(template: Template): string {
  const tables = Object.entries(template.Resources).filter(
    ([, resource]) => resource.Type === "AWS::DynamoDB::Table",
  );
  expect(tables).toHaveLength(1);
  const [logicalId, table] = tables[0] as [string, Resource];
  expect(table.DeletionPolicy).toBe("Delete");
  expect(table.UpdateReplacePolicy).toBe("Delete");
  expect(table.Properties).toEqual({
    BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [{ AttributeName: "sessionId", AttributeType: "S" }],
    KeySchema: [{ AttributeName: "sessionId", KeyType: "HASH" }],
    TimeToLiveSpecification: { AttributeName: "expiresAt", Enabled: true },
  });
  return logicalId;
}

/** `arn:${AWS::Partition}:aps:<region>:${AWS::AccountId}:<resource>` as the template builds it. */
function apsArn(resource: string, region: unknown = { Ref: "AWS::Region" }): unknown {
  return {
    "Fn::Join": [":", ["arn", { Ref: "AWS::Partition" }, "aps", region, { Ref: "AWS::AccountId" }, resource]],
  };
}

function isDataAction(action: string): boolean {
  return action.startsWith("aps:") && !APS_OWN_STATEMENT.includes(action);
}

/** The role's aps actions, sorted. */
function apsActionsOf(template: Template): string[] {
  return roleStatements(template)
    .flatMap((statement) => [statement.Action].flat())
    .filter((action) => action.startsWith("aps:"))
    .sort();
}

/** The resources of the one statement granting the aps data actions `actions` (and only them). */
function dataResources(template: Template, actions: string[] = APS_DATA_ACTIONS): unknown[] {
  const statements = roleStatements(template).filter((statement) =>
    [statement.Action].flat().some(isDataAction),
  );
  expect(statements).toHaveLength(1);
  const [statement] = statements as [Statement];
  // Sorted in the template itself, not only as a set.
  expect([statement.Action].flat()).toEqual(actions);
  return [statement.Resource].flat();
}

/**
 * Least privilege: the read-only aps actions the served tools call, `apsActions` (by default every
 * tool's): ListWorkspaces alone on "*", only in `regions`; the rest on workspaces: DescribeWorkspace
 * alone on every workspace of `regions`, the data actions in one statement on `dataOn`, by default every
 * workspace of `regions`; no statement without an action. The four DynamoDB item actions on the sessions
 * table's ARN only, the framework's log actions; no wildcard action anywhere, only Allow. `regions`:
 * the stack's (a reference), then others by name.
 */
function expectLeastPrivilege(
  template: Template,
  tableId: string,
  dataOn?: unknown[],
  regions: unknown[] = [{ Ref: "AWS::Region" }],
  apsActions: string[] = APS_ACTIONS,
  dynamodbActions: string[] = DYNAMODB_ACTIONS,
) {
  const statements = roleStatements(template);
  const actions = statements.flatMap((statement) => [statement.Action].flat());
  for (const action of actions) expect(action).not.toContain("*");
  expect(statements.every((statement) => statement.Effect === "Allow")).toBe(true);
  expect(statements.every((statement) => [statement.Action].flat().length > 0)).toBe(true);
  expect(apsActionsOf(template)).toEqual(apsActions);
  expect(statements.filter((statement) => isStar(statement.Resource))).toHaveLength(
    apsActions.includes("aps:ListWorkspaces") ? 1 : 0,
  );
  expect(
    actions
      .filter((action) => !action.startsWith("aps:") && !action.startsWith("dynamodb:"))
      .every((action) => FRAMEWORK_LOG_ACTIONS.includes(action)),
  ).toBe(true);
  const everyWorkspace = regions.map((region) => apsArn("workspace/*", region));
  for (const statement of statements) {
    const statementActions = [statement.Action].flat();
    if (isStar(statement.Resource)) {
      expect(statementActions).toEqual(["aps:ListWorkspaces"]);
      expect(statement.Condition).toEqual({ StringEquals: { "aws:RequestedRegion": regions } });
    } else if (statementActions.includes("aps:DescribeWorkspace")) {
      expect(statementActions).toEqual(["aps:DescribeWorkspace"]);
      expect(statement.Resource).toEqual(everyWorkspace);
    } else if (statementActions.some((action) => action.startsWith("aps:"))) {
      expect(JSON.stringify(statement.Resource)).toContain("workspace/");
    }
  }
  const dataActions = apsActions.filter(isDataAction);
  if (dataActions.length > 0) {
    expect(dataResources(template, dataActions)).toEqual(dataOn ?? everyWorkspace);
  } else {
    expect(statements.filter((statement) => [statement.Action].flat().some(isDataAction))).toEqual([]);
  }

  const dynamodb = statements.filter((statement) =>
    [statement.Action].flat().some((action) => action.startsWith("dynamodb:")),
  );
  expect(dynamodb).toHaveLength(1);
  const [statement] = dynamodb as [Statement];
  expect([statement.Action].flat().sort()).toEqual(dynamodbActions);
  expect(isStar(statement.Resource)).toBe(false);
  expect([statement.Resource].flat()).toEqual([{ "Fn::GetAtt": [tableId, "Arn"] }]);
}

function output(run: SlsRun): string {
  return `exit ${run.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
}

describe("serverless package (default: AWS_IAM on /mcp)", () => {
  let template: Template;
  let dir: string;

  beforeAll(async () => {
    const packaged = await packageTo("package-iam");
    expect(packaged.run.code, output(packaged.run)).toBe(0);
    dir = packaged.dir;
    template = await templateIn(dir);
  }, 180_000);

  it("defines one function: nodejs24.x on arm64, the handler, a timeout under the HTTP API's 30 s", () => {
    const functions = resourcesOf(template, "AWS::Lambda::Function");
    expect(functions).toHaveLength(1);
    const properties = functions[0]?.Properties ?? {};
    expect(properties.Runtime).toBe("nodejs24.x");
    expect(properties.Architectures).toEqual(["arm64"]);
    expect(properties.Handler).toBe("src/lambda/handler.handler");
    expect(properties.Timeout).toBeLessThan(30);
    expect(properties.MemorySize).toBeGreaterThanOrEqual(256);
    expect(properties.MemorySize).toBeLessThanOrEqual(1024);
  });

  it("configures the application with its documented defaults, sessions in the stack's table", () => {
    const tableId = expectSessionsTable(template);
    expect(functionEnvironment(template)).toEqual({
      PROMETHEUS_URL: "",
      PROMETHEUS_AUTH: "sigv4",
      PROMETHEUS_SECRET: "",
      PROMETHEUS_HEADERS: "",
      PROMETHEUS_KIND: "",
      BACKENDS: "",
      TENANT_CLAIM: "",
      TENANT_HEADER: "",
      ALLOWED_TENANTS: "",
      ALERTMANAGER_URL: "",
      ALLOWED_WORKSPACES: "",
      ALLOWED_REGIONS: "us-east-1",
      AMP_ENDPOINT: "",
      PYTHON_COMPAT: "false",
      TOOLS: "",
      ALLOWED_ORIGINS: "",
      MAX_BODY_BYTES: "1048576",
      MAX_RESULT_TOKENS: "20000",
      MAX_RESULT_BYTES: "",
      LOG_LEVEL: "INFO",
      SESSIONS: "optional",
      SESSION_TTL_SECONDS: "86400",
      SESSION_STORE: "dynamodb",
      SESSION_DIR: "",
      SESSION_TABLE: { Ref: tableId },
      DYNAMODB_ENDPOINT: "",
      METRICS_NAMESPACE: "PrometheusMcp",
      SERVICE_NAME: "prometheus-mcp-lambda",
      METRICS: "on",
      TRACING: "off",
      JWT_ISSUER: "",
      JWT_SCOPES: "",
    });
  });

  it("defines the sessions table: on demand, key sessionId (S), TTL on expiresAt", () => {
    expectSessionsTable(template);
  });

  it("routes POST, GET and DELETE /mcp behind AWS_IAM; health and the resource metadata are public", () => {
    const byKey = routes(template);
    expect([...byKey.keys()].sort()).toEqual(ROUTE_KEYS);
    for (const key of ["POST /mcp", "GET /mcp", "DELETE /mcp"]) {
      expect(byKey.get(key)?.AuthorizationType, key).toBe("AWS_IAM");
    }
    for (const key of PUBLIC_ROUTES) expect(byKey.get(key)?.AuthorizationType ?? "NONE", key).toBe("NONE");
    expect(resourcesOf(template, "AWS::ApiGatewayV2::Authorizer")).toEqual([]);
  });

  it("lets browsers send the MCP headers and read Mcp-Session-Id (CORS), as the function's own preflight says", () => {
    const api = resourcesOf(template, "AWS::ApiGatewayV2::Api")[0]?.Properties ?? {};
    const cors = api.CorsConfiguration as {
      AllowHeaders: string[];
      ExposeHeaders: string[];
      AllowMethods: string[];
      MaxAge: number;
    };
    expect(cors.AllowHeaders).toEqual(expect.arrayContaining(CORS_HEADERS));
    expect(cors.ExposeHeaders).toEqual(["Mcp-Session-Id"]);
    expect(cors.AllowMethods).toEqual(expect.arrayContaining(["GET", "POST", "DELETE", "OPTIONS"]));
    // The function answers preflights itself where API Gateway does not (Function URL, REST API).
    expect(CORS_PREFLIGHT_HEADERS).toStrictEqual({
      "Access-Control-Allow-Methods": cors.AllowMethods.join(", "),
      "Access-Control-Allow-Headers": cors.AllowHeaders.join(", "),
      "Access-Control-Max-Age": String(cors.MaxAge),
    });
  });

  it("passes cfn-lint with no error", async (context) => {
    if (!cfnLintAvailable()) context.skip("cfn-lint is not installed here (CI installs it and runs this)");
    const lint = await cfnLint(dir);
    expect(lint.errors, lint.output).toEqual([]);
  }, 120_000);

  it("outputs the full /mcp URL and the sessions table's name; publishes no function versions", () => {
    expect(template.Outputs.McpUrl?.Value).toEqual({
      "Fn::Join": [
        "",
        [
          "https://",
          { Ref: "HttpApi" },
          ".execute-api.",
          { Ref: "AWS::Region" },
          ".",
          { Ref: "AWS::URLSuffix" },
          "/mcp",
        ],
      ],
    });
    expect(template.Outputs.SessionsTableName?.Value).toEqual({ Ref: expectSessionsTable(template) });
    expect(resourcesOf(template, "AWS::Lambda::Version")).toEqual([]);
  });

  it("grants the read-only aps actions every tool calls (ListWorkspaces alone on *) and item access to the table", () => {
    expectLeastPrivilege(template, expectSessionsTable(template));
  });

  it("ships a minified ESM handler whose AWS SDK parts are chunks loaded on first use, loadable without a package.json", async () => {
    const artifact = join(dir, "mcp.zip");
    const { size } = await stat(artifact);
    const entries = readZip(await readFile(artifact));
    const bundle = entries.get("src/lambda/handler.mjs");
    console.log(
      `mcp.zip: ${(size / 1024).toFixed(1)} KiB, ${entries.size} files; ` +
        `src/lambda/handler.mjs ${((bundle?.length ?? 0) / 1024).toFixed(1)} KiB unzipped`,
    );
    // ES modules, and the SDK's Ajv provider apart (read only if a validator is ever asked for).
    const AJV_PROVIDER = "src/lambda/sdk-ajv-provider.cjs";
    expect(entries.has(AJV_PROVIDER)).toBe(true);
    // The chart renderer's worker, beside the chunk that starts it, and its files beside it
    // (scripts/esbuild-plugins.cjs, chartWorkerBeside and chartAssetsBeside).
    const CHART_WORKER = "src/lambda/chart-worker.mjs";
    const CHART_FILES = ["src/lambda/resvg.wasm", "src/lambda/DejaVuSans.ttf"];
    for (const file of [CHART_WORKER, ...CHART_FILES]) expect(entries.has(file), file).toBe(true);
    expect(
      [...entries.keys()].every(
        (name) =>
          name === AJV_PROVIDER ||
          CHART_FILES.includes(name) ||
          (name.startsWith("src/lambda/") && name.endsWith(".mjs")),
      ),
    ).toBe(true);
    // The renderer (ECharts, resvg's glue) is in the worker's file alone: no chunk of the handler holds it.
    const worker = entries.get(CHART_WORKER)?.toString("utf8") ?? "";
    for (const library of ["zrender", "__wbindgen"]) expect(worker.includes(library), library).toBe(true);
    console.log(
      `chart renderer: ${CHART_FILES.map((file) => `${file} ${((entries.get(file)?.length ?? 0) / 1024).toFixed(0)} KiB`).join(", ")} unzipped`,
    );
    expect(size).toBeLessThan(3 * MB);
    const code = bundle?.toString("utf8") ?? "";
    expect(code).toContain("createRequire");
    // The AWS SDK (SigV4 signing among it) is not in the handler's own file: it is a chunk imported
    // when a tool first needs it, so cold start does not compile it.
    const SIGV4 = "AWS4-HMAC-SHA256";
    // Nor is Ajv (an option name of its own): scripts/esbuild-plugins.cjs bundles it apart.
    expect(code.includes("strictTypes")).toBe(false);
    expect(entries.get(AJV_PROVIDER)?.toString("utf8").includes("strictTypes")).toBe(true);
    expect(code.includes(SIGV4)).toBe(false);
    const chunks = [...entries.values()].map((chunk) => chunk.toString("utf8"));
    expect(chunks.filter((chunk) => chunk.includes(SIGV4)).length).toBeGreaterThan(0);
    // Nor the chart renderer (ECharts, resvg): the worker's file, which the first chart starts.
    // (zrender is ECharts' drawing layer; __wbindgen resvg's WebAssembly glue.)
    // Nor the MCP Apps view's page (its title): a chunk the first resources/read imports.
    for (const library of ["zrender", "__wbindgen", "<title>Range chart</title>"]) {
      expect(code.includes(library), library).toBe(false);
      expect(
        chunks.some((chunk) => chunk.includes(library)),
        library,
      ).toBe(true);
    }

    // Load it the way the Lambda runtime loads an .mjs handler: the zip's files, no package.json.
    const taskRoot = await mkdtemp(join(tmpdir(), "pml-task-"));
    try {
      for (const [name, content] of entries) {
        await mkdir(dirname(join(taskRoot, name)), { recursive: true });
        await writeFile(join(taskRoot, name), content);
      }
      const file = join(taskRoot, "src", "lambda", "handler.mjs");
      const event = JSON.parse(await readFile(join(ROOT, "events", "v2-health.json"), "utf8"));
      const readView = {
        jsonrpc: "2.0",
        id: 2,
        method: "resources/read",
        params: { uri: "ui://prometheus-mcp-lambda/range-chart" },
      };
      const listWorkspaces = {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "GetAvailableWorkspaces", arguments: {} },
      };
      const reply = await runModule(
        taskRoot,
        `const { handler } = await import(${JSON.stringify(pathToFileURL(file).href)});
         const context = { awsRequestId: "test", functionName: "mcp", getRemainingTimeInMillis: () => 29000 };
         const health = await handler(${JSON.stringify(event)}, context);
         const tool = await handler(${JSON.stringify(listWorkspaces)}, context);
         const view = await handler(${JSON.stringify(readView)}, context);
         process.stdout.write(JSON.stringify({ health, tool, view }));`,
      );
      // A chart, drawn by the worker the zip holds (a Prometheus stand-in answers its query).
      const upstream = await startFaultServer([
        {
          status: 200,
          body: successBody({
            resultType: "matrix",
            result: [
              {
                metric: { __name__: "up" },
                values: [
                  [1_700_000_000, "1"],
                  [1_700_000_060, "2"],
                ],
              },
            ],
          }),
        },
      ]);
      const plot = {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: {
          name: "PlotRangeQuery",
          arguments: { query: "up", start: "1700000000", end: "1700000060", step: "60" },
        },
      };
      const drawn = await runModule(
        taskRoot,
        `const { handler } = await import(${JSON.stringify(pathToFileURL(file).href)});
         const context = { awsRequestId: "test", functionName: "mcp", getRemainingTimeInMillis: () => 29000 };
         const chart = await handler(${JSON.stringify(plot)}, context);
         process.stdout.write(JSON.stringify(chart));`,
        { PROMETHEUS_URL: upstream.url, PROMETHEUS_AUTH: "none", LOG_LEVEL: "ERROR" },
      ).finally(() => upstream.close());
      expect(drawn.code, drawn.stderr).toBe(0);
      const content = (JSON.parse(drawn.stdout) as { result: { content: Array<{ type: string }> } }).result
        .content;
      expect(
        content.map((item) => item.type),
        `${drawn.stdout.slice(0, 3000)} ${drawn.stderr.slice(0, 3000)}`,
      ).toStrictEqual(["image", "text"]);
      expect(reply.code, reply.stderr).toBe(0);
      const { health, tool, view } = JSON.parse(reply.stdout) as {
        health: { statusCode: number; body: string };
        tool: { result: { isError: boolean; content: { text: string }[] } };
        view: { result: { contents: { text: string }[] } };
      };
      // The page the bundle holds (built by the esbuild plugin) is the one the sources build.
      expect(view.result.contents[0]?.text).toBe(await buildRangeView(esbuild));
      expect(health.statusCode).toBe(200);
      expect(JSON.parse(health.body)).toMatchObject({ status: "healthy" });
      // The AMP chunk loaded and ran: the call reached the (unreachable) control plane.
      expect(tool.result.isError).toBe(true);
      expect(tool.result.content[0]?.text).toMatch(/^Error executing tool GetAvailableWorkspaces: /);
      expect(tool.result.content[0]?.text).not.toMatch(/internal error/i);
    } finally {
      await rm(taskRoot, { recursive: true, force: true });
    }
  }, 90_000);
});

describe("serverless package --param=auth=jwt", () => {
  it("puts a JWT authorizer requiring the jwtScopes on every /mcp route, none on /health and the resource metadata, which names the issuer and those scopes; cfn-lint finds no error", async (context) => {
    const { run, dir } = await packageTo("package-jwt", [
      "auth=jwt",
      "jwtIssuer=https://cognito-idp.us-east-1.amazonaws.com/us-east-1_AbCdEfGhI",
      "jwtAudience=5r0abc123example",
      "jwtScopes=mcp:read mcp:query",
    ]);
    expect(run.code, output(run)).toBe(0);
    const template = await templateIn(dir);
    const authorizers = resourcesOf(template, "AWS::ApiGatewayV2::Authorizer");
    expect(authorizers).toHaveLength(1);
    expect(authorizers[0]?.Properties).toMatchObject({
      AuthorizerType: "JWT",
      IdentitySource: ["$request.header.Authorization"],
      JwtConfiguration: {
        Issuer: "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_AbCdEfGhI",
        Audience: ["5r0abc123example"],
      },
    });
    const byKey = routes(template);
    for (const key of ["POST /mcp", "GET /mcp", "DELETE /mcp"]) {
      expect(byKey.get(key)?.AuthorizationType, key).toBe("JWT");
      expect(byKey.get(key)?.AuthorizerId, key).toBeDefined();
      // API Gateway lets a token through only when its scope / scp claim holds one of these.
      expect(byKey.get(key)?.AuthorizationScopes, key).toStrictEqual(["mcp:read", "mcp:query"]);
    }
    for (const key of PUBLIC_ROUTES) {
      expect(byKey.get(key)?.AuthorizationType ?? "NONE", key).toBe("NONE");
      expect(byKey.get(key)?.AuthorizationScopes, key).toBeUndefined();
    }
    const environment = functionEnvironment(template);
    expect(environment).toMatchObject({
      JWT_ISSUER: "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_AbCdEfGhI",
      JWT_SCOPES: "mcp:read mcp:query",
    });
    // The function, given this environment, advertises what the routes require: the same list.
    const metadata = await callHttp(
      makeHandler({ JWT_ISSUER: String(environment.JWT_ISSUER), JWT_SCOPES: String(environment.JWT_SCOPES) }),
      { method: "GET", path: "/.well-known/oauth-protected-resource/mcp" },
    );
    expect(metadata.statusCode).toBe(200);
    expect(JSON.parse(metadata.body).scopes_supported).toStrictEqual(
      byKey.get("POST /mcp")?.AuthorizationScopes,
    );

    const tableId = expectSessionsTable(template);
    expect(functionEnvironment(template).SESSION_TABLE).toEqual({ Ref: tableId });
    expectLeastPrivilege(template, tableId);
    if (!cfnLintAvailable()) context.skip("cfn-lint is not installed here (CI installs it and runs this)");
    const lint = await cfnLint(dir);
    expect(lint.errors, lint.output).toEqual([]);
  }, 120_000);

  it("refuses auth=jwt without an issuer", async () => {
    const { run } = await packageTo("package-jwt-incomplete", ["auth=jwt"]);
    expect(run.code).not.toBe(0);
    expect(`${run.stdout}${run.stderr}`).toContain("issuerUrl");
  }, 120_000);

  it("refuses an unknown auth value", async () => {
    const { run } = await packageTo("package-bad-auth", ["auth=none"]);
    expect(run.code).not.toBe(0);
    expect(`${run.stdout}${run.stderr}`).toContain("provider.httpApi.authorizers");
  }, 120_000);
});

describe("serverless package with a pinned workspace and an allow-list", () => {
  it("grants the aps data actions on those workspaces' ARNs only, each in its own region, and allows those regions (RequestedRegion, ALLOWED_REGIONS)", async () => {
    const arnEntry = "arn:aws:aps:us-west-2:123456789012:workspace/ws-team-e";
    const { run, dir } = await packageTo("package-pinned", [
      "prometheusUrl=https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-team-a/",
      `allowedWorkspaces=ws-team-c, ws-team-d,${arnEntry}`,
    ]);
    expect(run.code, output(run)).toBe(0);
    const template = await templateIn(dir);
    expect(functionEnvironment(template)).toMatchObject({
      PROMETHEUS_URL: "https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-team-a/",
      ALLOWED_WORKSPACES: `ws-team-c, ws-team-d,${arnEntry}`,
      // A us-east-1 stack: its own region, then the regions of the workspaces it names elsewhere.
      ALLOWED_REGIONS: "us-east-1,eu-west-1,us-west-2",
    });
    const tableId = expectSessionsTable(template);
    // The pinned workspace in its URL's region, the ARN's in its region; the listed ids in the stack's.
    // ListWorkspaces (aws:RequestedRegion) and DescribeWorkspace in those regions too.
    expectLeastPrivilege(
      template,
      tableId,
      [
        apsArn("workspace/ws-team-a", "eu-west-1"),
        apsArn("workspace/ws-team-c"),
        apsArn("workspace/ws-team-d"),
        apsArn("workspace/ws-team-e", "us-west-2"),
      ],
      [{ Ref: "AWS::Region" }, "eu-west-1", "us-west-2"],
    );
    expect(JSON.stringify(dataResources(template))).not.toContain("workspace/*");
  }, 120_000);

  it("an allow-list alone limits the grant too; a plain Prometheus URL alone does not", async () => {
    const listOnly = await packageTo("package-allow-list", ["allowedWorkspaces=ws-team-b"]);
    expect(listOnly.run.code, output(listOnly.run)).toBe(0);
    expect(dataResources(await templateIn(listOnly.dir))).toEqual([apsArn("workspace/ws-team-b")]);

    const plain = await packageTo("package-plain", ["prometheusUrl=http://prometheus.internal:9090/"]);
    expect(plain.run.code, output(plain.run)).toBe(0);
    expect(dataResources(await templateIn(plain.dir))).toEqual([apsArn("workspace/*")]);
  }, 180_000);

  it("refuses an allow-list entry that is not a workspace id", async () => {
    const { run } = await packageTo("package-bad-allow-list", ["allowedWorkspaces=ws-team-a,team b"]);
    expect(run.code).not.toBe(0);
    // The app's own check (scripts/check-settings.cjs) stops it first, with the app's one line.
    expect(`${run.stdout}${run.stderr}`).toContain(
      'Invalid configuration: ALLOWED_WORKSPACES="ws-team-a,team b" (expected a comma-separated list of AMP workspace ids',
    );
  }, 120_000);
});

describe("serverless package with credentials kept in Secrets Manager or SSM", () => {
  const SECRET = "arn:aws:secretsmanager:us-east-1:123456789012:secret:prometheus-token";
  const LITERAL = "tok-never-in-a-template-5e1";

  it("grants GetSecretValue on that one secret (as given and with AWS's suffix), or GetParameter on that one parameter; the function gets where, not what", async (context) => {
    const sm = await packageTo("package-secret-sm", [
      "prometheusUrl=https://mimir.example.com/prometheus",
      "prometheusAuth=bearer",
      `prometheusSecret=${SECRET}`,
      "prometheusHeaders=X-Scope-OrgID: team-a",
    ]);
    expect(sm.run.code, output(sm.run)).toBe(0);
    const template = await templateIn(sm.dir);
    const reads = roleStatements(template).filter((statement) =>
      [statement.Action].flat().some((action) => /^(secretsmanager|ssm):/.test(action)),
    );
    expect(reads).toStrictEqual([
      { Effect: "Allow", Action: ["secretsmanager:GetSecretValue"], Resource: [SECRET, `${SECRET}-??????`] },
    ]);
    expect(functionEnvironment(template)).toMatchObject({
      PROMETHEUS_AUTH: "bearer",
      PROMETHEUS_SECRET: SECRET,
      PROMETHEUS_HEADERS: "X-Scope-OrgID: team-a",
    });
    if (!cfnLintAvailable()) context.skip("cfn-lint is not installed here (CI installs it and runs this)");
    const lint = await cfnLint(sm.dir);
    expect(lint.errors, lint.output).toEqual([]);

    const ssm = await packageTo("package-secret-ssm", [
      "prometheusUrl=https://mimir.example.com/prometheus",
      "prometheusAuth=basic",
      "prometheusSecret=ssm:/team-a/prometheus",
    ]);
    expect(ssm.run.code, output(ssm.run)).toBe(0);
    const parameter = roleStatements(await templateIn(ssm.dir)).filter((statement) =>
      [statement.Action].flat().includes("ssm:GetParameter"),
    );
    expect(parameter).toStrictEqual([
      {
        Effect: "Allow",
        Action: ["ssm:GetParameter"],
        Resource: [
          {
            "Fn::Sub": expect.stringMatching(
              /^arn:\$\{AWS::Partition\}:ssm:\$\{AWS::Region\}:\$\{AWS::AccountId\}:parameter\/team-a\/prometheus$/,
            ),
          },
        ],
      },
    ]);
  }, 180_000);

  it("tenants from tokens need auth=jwt: the claim and header reach the function; with IAM, packaging stops", async () => {
    const jwt = await packageTo("package-tenants", [
      "auth=jwt",
      "jwtIssuer=https://cognito-idp.us-east-1.amazonaws.com/us-east-1_AbCdEfGhI",
      "jwtAudience=5r0abc123example",
      "prometheusUrl=https://mimir.example.com/prometheus",
      "prometheusAuth=none",
      "tenantClaim=custom:tenant",
      "allowedTenants=team-a,team-b",
    ]);
    expect(jwt.run.code, output(jwt.run)).toBe(0);
    expect(functionEnvironment(await templateIn(jwt.dir))).toMatchObject({
      TENANT_CLAIM: "custom:tenant",
      TENANT_HEADER: "",
      ALLOWED_TENANTS: "team-a,team-b",
    });
    const iam = await packageTo("package-tenants-iam", [
      "prometheusUrl=https://mimir.example.com/prometheus",
      "prometheusAuth=none",
      "tenantClaim=custom:tenant",
    ]);
    expect(iam.run.code).not.toBe(0);
    expect(output(iam.run)).toContain(
      'Invalid configuration: TENANT_CLAIM="custom:tenant" (expected JWT_ISSUER to be set as well',
    );
  }, 180_000);

  it("refuses the credentials themselves, without repeating them", async () => {
    const { run, dir } = await packageTo("package-secret-literal", [
      "prometheusUrl=https://mimir.example.com/prometheus",
      "prometheusAuth=bearer",
      `prometheusSecret=${LITERAL}`,
    ]);
    expect(run.code).not.toBe(0);
    expect(output(run)).toMatch(
      /prometheusSecret \(expected a Secrets Manager secret ARN or ssm:\/parameter/,
    );
    expect(output(run)).not.toContain(LITERAL);
    await expect(templateIn(dir)).rejects.toThrow();
  }, 120_000);
});

describe("serverless package --param=backends=…", () => {
  const TOKEN_ARN = "arn:aws:secretsmanager:us-east-1:123456789012:secret:mimir-token";
  const BACKENDS = {
    prod: { url: "https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-prod-1/", default: true },
    mimir: { url: "https://mimir.example.com/prometheus", auth: "bearer", secret: TOKEN_ARN, kind: "mimir" },
    lab: { url: "http://prometheus.lab:9090", auth: "basic", secret: "ssm:/lab/prometheus" },
  };

  it("a backends file goes into the package; each backend's secret is granted alone, its AMP workspace in its region", async () => {
    await mkdir(join(service.dir, "config"), { recursive: true });
    await writeFile(join(service.dir, "config", "backends.json"), JSON.stringify(BACKENDS));
    const { run, dir } = await packageTo("package-backends", ["backends=config/backends.json"]);
    expect(run.code, output(run)).toBe(0);
    const entries = readZip(await readFile(join(dir, "mcp.zip")));
    expect(JSON.parse(entries.get("config/backends.json")?.toString("utf8") ?? "null")).toEqual(BACKENDS);
    const template = await templateIn(dir);
    expect(functionEnvironment(template)).toMatchObject({
      BACKENDS: "config/backends.json",
      ALLOWED_REGIONS: "us-east-1,eu-west-1",
    });
    const reads = roleStatements(template).filter((statement) =>
      [statement.Action].flat().some((action) => /^(secretsmanager|ssm):/.test(action)),
    );
    expect(reads).toStrictEqual([
      {
        Effect: "Allow",
        Action: ["secretsmanager:GetSecretValue"],
        Resource: [TOKEN_ARN, `${TOKEN_ARN}-??????`],
      },
      {
        Effect: "Allow",
        Action: ["ssm:GetParameter"],
        Resource: [{ "Fn::Sub": expect.stringMatching(/:parameter\/lab\/prometheus$/) }],
      },
    ]);
    // The AMP backend is the deployment's workspace: the data actions on it alone, in its region.
    expect(dataResources(template)).toStrictEqual([apsArn("workspace/ws-prod-1", "eu-west-1")]);
  }, 180_000);

  it("inline JSON works as well; the credentials themselves, or beside prometheusUrl, are refused without repeating them", async () => {
    const inline = await packageTo("package-backends-inline", [
      `backends=${JSON.stringify({ lab: BACKENDS.lab })}`,
    ]);
    expect(inline.run.code, output(inline.run)).toBe(0);
    const entries = readZip(await readFile(join(inline.dir, "mcp.zip")));
    expect([...entries.keys()].filter((name) => !name.startsWith("src/"))).toEqual([]);

    const LITERAL = "tok-never-in-a-template-b4c";
    const literal = await packageTo("package-backends-literal", [
      `backends=${JSON.stringify({ lab: { url: "http://p", auth: "bearer", secret: LITERAL } })}`,
    ]);
    expect(literal.run.code).not.toBe(0);
    expect(output(literal.run)).toMatch(/not the credentials themselves/);
    expect(output(literal.run)).not.toContain(LITERAL);

    const both = await packageTo("package-backends-both", [
      `backends=${JSON.stringify({ lab: BACKENDS.lab })}`,
      "prometheusUrl=http://other:9090",
    ]);
    expect(both.run.code).not.toBe(0);
    expect(output(both.run)).toMatch(/PROMETHEUS_URL unset: with BACKENDS/);
    const outside = await packageTo("package-backends-outside", ["backends=/etc/backends.json"]);
    expect(outside.run.code).not.toBe(0);
    expect(output(outside.run)).toMatch(/the path of a file inside the service directory/);
  }, 240_000);
});

/** tools/catalog.json: the tool groups and each tool's aps actions. */
interface Catalog {
  groups: Record<string, string[]>;
  actions: Record<string, string[]>;
}

/** The aps actions a TOOLS value's tools call, from tools/catalog.json (groups expanded, `all` = every tool). */
async function catalogActions(tools: string): Promise<string[]> {
  const catalog = JSON.parse(await readFile(join(ROOT, "tools", "catalog.json"), "utf8")) as Catalog;
  const groups: Record<string, string[]> = { ...catalog.groups, all: Object.keys(catalog.actions) };
  const served = tools
    .split(",")
    .map((entry) => entry.trim())
    .flatMap((entry) => groups[entry] ?? [entry]);
  return [...new Set(served.flatMap((tool) => catalog.actions[tool] ?? []))].sort();
}

describe("serverless package --param=tools=…: the role follows the tools served", () => {
  interface ToolsCase {
    /** The --param values. */
    params: string[];
    /** The shell's environment. */
    env?: Record<string, string>;
    /** TOOLS of the function: the parameter as given. */
    tools: string;
    /** PYTHON_COMPAT of the function. */
    pythonCompat: "true" | "false";
    /** The role's aps actions: written out, or the catalog's for this TOOLS value. */
    actions: string[] | { fromCatalog: string };
  }
  const CASES: Record<string, ToolsCase> = {
    "pythonCompat=true": {
      params: ["pythonCompat=true"],
      tools: "",
      pythonCompat: "true",
      // The five core tools' actions, and nothing the later tools added.
      actions: ["aps:DescribeWorkspace", "aps:GetLabels", "aps:ListWorkspaces", "aps:QueryMetrics"],
    },
    "pythonCompat=true tools=all": {
      params: ["pythonCompat=true", "tools=all"],
      tools: "all",
      pythonCompat: "true",
      actions: APS_ACTIONS,
    },
    "tools=alerting": {
      params: ["tools=alerting"],
      tools: "alerting",
      pythonCompat: "false",
      actions: { fromCatalog: "alerting" },
    },
    "tools=ExecuteQuery,FindSeries": {
      params: ["tools=ExecuteQuery,FindSeries"],
      tools: "ExecuteQuery,FindSeries",
      pythonCompat: "false",
      actions: { fromCatalog: "ExecuteQuery,FindSeries" },
    },
    "PYTHON_COMPAT=true TOOLS=discovery,GetServerInfo in the shell": {
      params: [],
      env: { PYTHON_COMPAT: "true", TOOLS: "discovery,GetServerInfo" },
      tools: "discovery,GetServerInfo",
      pythonCompat: "true",
      actions: { fromCatalog: "discovery,GetServerInfo" },
    },
  };
  const packaged = new Map<string, { template: Template; dir: string }>();

  beforeAll(async () => {
    // One after another: the runs share the service copy's build folders.
    let index = 0;
    for (const [name, { params, env }] of Object.entries(CASES)) {
      const { run, dir } = await packageTo(`package-tools-${index++}`, params, env);
      expect(run.code, `${name}\n${output(run)}`).toBe(0);
      packaged.set(name, { template: await templateIn(dir), dir });
    }
  }, 300_000);

  it.each(Object.keys(CASES))(
    "%s: the role has exactly the served tools' aps actions; TOOLS is the value given",
    async (name) => {
      const { template } = packaged.get(name) ?? expect.unreachable(`${name} was not packaged`);
      const { actions, tools, pythonCompat } = CASES[name] as ToolsCase;
      const expected = Array.isArray(actions) ? actions : await catalogActions(actions.fromCatalog);
      expectLeastPrivilege(template, expectSessionsTable(template), undefined, undefined, expected);
      expect(functionEnvironment(template)).toMatchObject({ TOOLS: tools, PYTHON_COMPAT: pythonCompat });
    },
  );

  it("the catalog agrees with the written-out action lists", async () => {
    expect(await catalogActions("all")).toEqual(APS_ACTIONS);
    expect(await catalogActions("core")).toEqual(
      (CASES["pythonCompat=true"] as { actions: string[] }).actions,
    );
    expect(await catalogActions("alerting")).toEqual([
      "aps:DescribeWorkspace",
      "aps:ListAlertManagerAlerts",
      "aps:ListAlertManagerSilences",
      "aps:ListAlerts",
      "aps:ListRules",
      "aps:QueryMetrics",
    ]);
    expect(await catalogActions("ExecuteQuery,FindSeries")).toEqual([
      "aps:DescribeWorkspace",
      "aps:GetSeries",
      "aps:QueryMetrics",
    ]);
  });

  it("tools=alerting: no ListWorkspaces statement at all; the data statement lists the alerting actions, sorted", () => {
    const { template } = packaged.get("tools=alerting") ?? expect.unreachable("not packaged");
    const statements = roleStatements(template);
    expect(statements.some((statement) => isStar(statement.Resource))).toBe(false);
    expect(JSON.stringify(statements)).not.toContain("aps:ListWorkspaces");
    expect(
      dataResources(template, [
        "aps:ListAlertManagerAlerts",
        "aps:ListAlertManagerSilences",
        "aps:ListAlerts",
        "aps:ListRules",
        "aps:QueryMetrics",
      ]),
    ).toEqual([apsArn("workspace/*")]);
  });

  it("the templates with fewer statements pass cfn-lint with no error", async (context) => {
    if (!cfnLintAvailable()) context.skip("cfn-lint is not installed here (CI installs it and runs this)");
    for (const name of ["tools=alerting", "tools=ExecuteQuery,FindSeries"]) {
      const lint = await cfnLint(packaged.get(name)?.dir ?? "");
      expect(lint.errors, `${name}\n${lint.output}`).toEqual([]);
    }
  }, 120_000);

  it("refuses an unknown name with one line naming it and the valid groups and tools", async () => {
    const { run } = await packageTo("package-tools-unknown", ["tools=core,ListEverything"]);
    expect(run.code).not.toBe(0);
    const said = `${run.stdout}${run.stderr}`;
    const lines = said.split("\n").filter((line) => line.includes("ListEverything"));
    expect(lines, said).toHaveLength(1);
    const [line] = lines as [string];
    // scripts/role-statements.cjs or the application's own check (scripts/check-settings.cjs), whichever
    // osls resolves first: both name the entry and the valid groups and tools.
    expect(line).toMatch(/"ListEverything" is neither a tool nor a group|ListEverything is neither/);
    for (const valid of [
      "core",
      "discovery",
      "alerting",
      "charts",
      "all",
      "ExecuteQuery",
      "GetMetricMetadata",
      "ListSilences",
    ]) {
      expect(line).toContain(valid);
    }
    // No stack trace: the one line is what to fix.
    expect(said).not.toMatch(/^\s+at /m);
  }, 120_000);
});

describe("serverless package: deploys that work the first time", () => {
  it("a 32-character stage in ap-southeast-2: the role is named by CloudFormation, and cfn-lint finds no error and no W1032", async (context) => {
    const stage = "feature-pr-1234-x-long-stage-nam";
    expect(stage).toHaveLength(32);
    const dir = join(service.dir, "package-long-stage");
    const run = await runSls(["package", "--package", dir, "--stage", stage, "--region", "ap-southeast-2"], {
      cwd: service.dir,
    });
    expect(run.code, output(run)).toBe(0);
    const template = await templateIn(dir);
    const role = resourcesOf(template, "AWS::IAM::Role")[0];
    // The framework's name would be prometheus-mcp-lambda-<stage>-ap-southeast-2-lambdaRole: 81 characters.
    expect(role?.Properties.RoleName).toEqual({ Ref: "AWS::NoValue" });
    if (!cfnLintAvailable()) context.skip("cfn-lint is not installed here (CI installs it and runs this)");
    const lint = await cfnLint(dir);
    expect(lint.errors, lint.output).toEqual([]);
    expect(
      lint.warnings.filter((line) => line.startsWith("W1032")),
      lint.output,
    ).toEqual([]);
  }, 180_000);

  it("AMP_ENDPOINT and DYNAMODB_ENDPOINT in the shell never reach the package (a warning says so); an explicit --param does, with a warning", async () => {
    const shell = { AMP_ENDPOINT: "http://127.0.0.1:9999", DYNAMODB_ENDPOINT: "http://127.0.0.1:8000" };
    const fromShell = join(service.dir, "package-local-shell");
    const ignored = await runSls(["package", "--package", fromShell], { cwd: service.dir, env: shell });
    expect(ignored.code, output(ignored)).toBe(0);
    expect(functionEnvironment(await templateIn(fromShell))).toMatchObject({
      AMP_ENDPOINT: "",
      DYNAMODB_ENDPOINT: "",
    });
    const said = `${ignored.stdout}${ignored.stderr}`;
    expect(said).toContain("AMP_ENDPOINT is set in this shell (http://127.0.0.1:9999) and ignored");
    expect(said).toContain("DYNAMODB_ENDPOINT is set in this shell (http://127.0.0.1:8000) and ignored");

    const explicit = join(service.dir, "package-local-param");
    const given = await runSls(
      ["package", "--package", explicit, "--param=ampEndpoint=http://10.0.0.5:8080"],
      {
        cwd: service.dir,
        env: shell,
      },
    );
    expect(given.code, output(given)).toBe(0);
    expect(functionEnvironment(await templateIn(explicit))).toMatchObject({
      AMP_ENDPOINT: "http://10.0.0.5:8080",
      DYNAMODB_ENDPOINT: "",
    });
    expect(`${given.stdout}${given.stderr}`).toContain(
      "--param=ampEndpoint puts AMP_ENDPOINT=http://10.0.0.5:8080 into the function",
    );
  }, 180_000);

  it("regions: the role may call aps in the stack's region and the listed ones only, and the function enforces that list", async () => {
    const { run, dir } = await packageTo("package-regions", ["regions=eu-west-1, us-west-2,eu-west-1"]);
    expect(run.code, output(run)).toBe(0);
    const template = await templateIn(dir);
    expect(functionEnvironment(template).ALLOWED_REGIONS).toBe("us-east-1,eu-west-1,us-west-2");
    expectLeastPrivilege(template, expectSessionsTable(template), undefined, [
      { Ref: "AWS::Region" },
      "eu-west-1",
      "us-west-2",
    ]);

    const bad = await packageTo("package-bad-regions", ["regions=eu-west-1,mars-1"]);
    expect(bad.run.code).not.toBe(0);
    expect(`${bad.run.stdout}${bad.run.stderr}`).toContain('regions: "mars-1" is not an AWS region');
  }, 180_000);
});

describe("serverless package --param=frontDoor=functionUrl", () => {
  it("adds a Function URL with AWS_IAM auth and CORS beside the HTTP API, a 120 s timeout, and the URL's /mcp as an output", async (context) => {
    const { run, dir } = await packageTo("package-function-url", ["frontDoor=functionUrl"]);
    expect(run.code, output(run)).toBe(0);
    const template = await templateIn(dir);
    const urls = Object.entries(template.Resources).filter(
      ([, resource]) => resource.Type === "AWS::Lambda::Url",
    );
    expect(urls).toHaveLength(1);
    const [urlId, url] = urls[0] as [string, Resource & { Condition?: string }];
    expect(url.Properties).toMatchObject({
      AuthType: "AWS_IAM",
      TargetFunctionArn: { "Fn::GetAtt": ["McpLambdaFunction", "Arn"] },
      Cors: {
        AllowOrigins: ["*"],
        ExposeHeaders: ["Mcp-Session-Id"],
        AllowMethods: ["GET", "POST", "DELETE"],
      },
    });
    expect((url.Properties.Cors as { AllowHeaders: string[] }).AllowHeaders).toEqual(
      expect.arrayContaining(CORS_HEADERS),
    );
    expect(template.Outputs.McpFunctionUrl?.Value).toEqual({
      "Fn::Join": ["", [{ "Fn::GetAtt": [urlId, "FunctionUrl"] }, "mcp"]],
    });
    const conditions = (template as unknown as { Conditions: Record<string, unknown> }).Conditions;
    expect(conditions[url.Condition ?? ""]).toEqual({
      "Fn::Or": [
        { "Fn::Equals": ["functionUrl", "functionUrl"] },
        { "Fn::Equals": ["functionUrl", "streaming"] },
      ],
    });
    expect(url.Properties.InvokeMode).toBe("BUFFERED");
    // The HTTP API stays, with its routes.
    expect([...routes(template).keys()].sort()).toEqual(ROUTE_KEYS);
    expect(resourcesOf(template, "AWS::Lambda::Function")[0]?.Properties.Timeout).toBe(120);
    if (!cfnLintAvailable()) context.skip("cfn-lint is not installed here (CI installs it and runs this)");
    const lint = await cfnLint(dir);
    expect(lint.errors, lint.output).toEqual([]);
  }, 180_000);

  it("without it the URL's condition is false: no Function URL is created, and the timeout stays under the gateway's 30 s", async () => {
    const { run, dir } = await packageTo("package-no-function-url", ["frontDoor=httpApi"]);
    expect(run.code, output(run)).toBe(0);
    const template = await templateIn(dir);
    const conditions = (template as unknown as { Conditions: Record<string, unknown> }).Conditions;
    expect(conditions.FunctionUrlOn).toEqual({
      "Fn::Or": [{ "Fn::Equals": ["httpApi", "functionUrl"] }, { "Fn::Equals": ["httpApi", "streaming"] }],
    });
    expect(resourcesOf(template, "AWS::Lambda::Function")[0]?.Properties.Timeout).toBe(29);
    const refused = await packageTo("package-bad-front-door", ["frontDoor=alb"]);
    expect(refused.run.code).not.toBe(0);
  }, 180_000);
});

describe("serverless package --param=frontDoor=streaming", () => {
  it("serves the streaming entry through a REST API whose integrations stream and a RESPONSE_STREAM Function URL, and no HTTP API", async (context) => {
    const { run, dir } = await packageTo("package-streaming", ["frontDoor=streaming"]);
    expect(run.code, output(run)).toBe(0);
    const template = await templateIn(dir);
    const fn = resourcesOf(template, "AWS::Lambda::Function")[0]?.Properties;
    expect(fn?.Handler).toBe("src/lambda/streamHandler.handler");
    expect(fn?.Timeout).toBe(300);
    expect(routes(template).size).toBe(0);
    expect(resourcesOf(template, "AWS::ApiGatewayV2::Api")).toEqual([]);

    // Every route of the HTTP API, on the REST API, plus OPTIONS /mcp for browsers' preflights.
    const paths = new Map(
      Object.entries(template.Resources)
        .filter(([, resource]) => resource.Type === "AWS::ApiGateway::Resource")
        .map(([id, resource]) => [id, String(resource.Properties.PathPart)]),
    );
    const pathOf = (id: string): string => {
      const parent = (template.Resources[id]?.Properties.ParentId as { Ref?: string } | undefined)?.Ref;
      return `${parent !== undefined && paths.has(parent) ? pathOf(parent) : ""}/${paths.get(id)}`;
    };
    const methods = resourcesOf(template, "AWS::ApiGateway::Method").map((method) => {
      const { HttpMethod, ResourceId, AuthorizationType, Integration } = method.Properties as {
        HttpMethod: string;
        ResourceId: { Ref: string };
        AuthorizationType: string;
        Integration: Json;
      };
      return { key: `${HttpMethod} ${pathOf(ResourceId.Ref)}`, AuthorizationType, Integration };
    });
    expect(methods.map((method) => method.key).sort()).toEqual([...ROUTE_KEYS, "OPTIONS /mcp"].sort());
    for (const { key, AuthorizationType, Integration } of methods) {
      const isPublic = PUBLIC_ROUTES.includes(key) || key === "OPTIONS /mcp";
      expect(AuthorizationType, key).toBe(isPublic ? "NONE" : "AWS_IAM");
      expect(Integration, key).toMatchObject({
        Type: "AWS_PROXY",
        ResponseTransferMode: "STREAM",
        TimeoutInMillis: 300_000,
      });
      const uri = JSON.stringify(Integration.Uri);
      expect(uri, key).toContain(":lambda:path/2021-11-15/functions/");
      expect(uri, key).toContain("/response-streaming-invocations");
    }

    const [url] = resourcesOf(template, "AWS::Lambda::Url");
    expect(url?.Properties).toMatchObject({ AuthType: "AWS_IAM", InvokeMode: "RESPONSE_STREAM" });
    const conditions = (template as unknown as { Conditions: Record<string, unknown> }).Conditions;
    expect(conditions.FunctionUrlOn).toEqual({
      "Fn::Or": [
        { "Fn::Equals": ["streaming", "functionUrl"] },
        { "Fn::Equals": ["streaming", "streaming"] },
      ],
    });
    expect(JSON.stringify(template.Outputs.McpUrl?.Value)).toContain('{"Ref":"ApiGatewayRestApi"}');
    expect(JSON.stringify(template.Outputs.McpUrl?.Value)).toContain('"/dev/mcp"');

    // Stream events live in the sessions table, read by key in batches: BatchGetItem, and still no Query.
    const keyReads = [...DYNAMODB_ACTIONS, "dynamodb:BatchGetItem"].sort();
    expectLeastPrivilege(
      template,
      expectSessionsTable(template),
      undefined,
      undefined,
      APS_ACTIONS,
      keyReads,
    );

    const entries = readZip(await readFile(join(dir, "mcp.zip")));
    expect(entries.has("src/lambda/streamHandler.mjs")).toBe(true);
    expect(entries.has("src/lambda/sdk-ajv-provider.cjs")).toBe(true);
    expect(entries.has("src/lambda/handler.mjs")).toBe(false);
    if (!cfnLintAvailable()) context.skip("cfn-lint is not installed here (CI installs it and runs this)");
    const lint = await cfnLint(dir);
    expect(lint.errors, lint.output).toEqual([]);
  }, 180_000);

  it("refuses auth=jwt, which neither streaming front door can check, in one line", async () => {
    const { run } = await packageTo("package-streaming-jwt", [
      "frontDoor=streaming",
      "auth=jwt",
      "jwtIssuer=https://issuer.example.com",
      "jwtAudience=client",
    ]);
    expect(run.code).not.toBe(0);
    expect(`${run.stdout}${run.stderr}`).toContain("frontDoor=streaming takes auth=iam only (not jwt)");
  }, 180_000);
});

describe("serverless package --param=sessionStore=…", () => {
  it("memory: SESSION_TABLE only from the shell (the table and its grant stay)", async () => {
    const { run, dir } = await packageTo("package-memory", ["sessionStore=memory"]);
    expect(run.code, output(run)).toBe(0);
    const template = await templateIn(dir);
    expect(functionEnvironment(template).SESSION_TABLE).toBe("");
    expectLeastPrivilege(template, expectSessionsTable(template));

    const shell = join(service.dir, "package-memory-shell");
    const withShell = await runSls(
      ["package", "--package", shell, "--stage", "qa", "--param=sessionStore=memory"],
      {
        cwd: service.dir,
        env: { SESSION_TABLE: "local-sessions", DYNAMODB_ENDPOINT: "http://127.0.0.1:8000" },
      },
    );
    expect(withShell.code, output(withShell)).toBe(0);
    const shellTemplate = await templateIn(shell);
    // DYNAMODB_ENDPOINT is local-only: package never takes it from the shell.
    expect(functionEnvironment(shellTemplate)).toMatchObject({
      SESSION_TABLE: "local-sessions",
      DYNAMODB_ENDPOINT: "",
    });
    expectSessionsTable(shellTemplate);
  }, 120_000);

  it("refuses an unknown sessionStore value", async () => {
    const { run } = await packageTo("package-bad-store", ["sessionStore=redis"]);
    expect(run.code).not.toBe(0);
    expect(`${run.stdout}${run.stderr}`).toContain("provider.environment.SESSION_TABLE");
  }, 120_000);
});

function runModule(cwd: string, source: string, settings: Record<string, string> = {}): Promise<Finished> {
  const env = {
    ...process.env,
    LOG_LEVEL: "SILENT",
    // Metrics (EMF) go to stdout whatever the log level; stdout here must be the script's JSON alone.
    METRICS: "off",
    AWS_REGION: "us-east-1",
    AMP_ENDPOINT: "http://127.0.0.1:9",
    AWS_EC2_METADATA_DISABLED: "true",
    ...settings,
  };
  return runToEnd(process.execPath, ["--input-type=module", "-e", source], { cwd, env, timeoutMs: 60_000 });
}
