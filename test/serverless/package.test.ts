import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyService, ROOT, runSls, type SlsRun } from "./sls.js";
import { readZip } from "./zip.js";

/** `serverless package` (offline) and the CloudFormation template and artifact it produces. */

type Json = Record<string, unknown>;
interface Resource {
  Type: string;
  Properties: Json;
}
interface Template {
  Resources: Record<string, Resource>;
}
interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

const APS_ACTIONS = [
  "aps:DescribeWorkspace",
  "aps:GetLabels",
  "aps:GetMetricMetadata",
  "aps:GetSeries",
  "aps:ListWorkspaces",
  "aps:QueryMetrics",
];
/** What the framework itself grants the function: writing its own log group. */
const FRAMEWORK_LOG_ACTIONS = [
  "logs:CreateLogGroup",
  "logs:CreateLogStream",
  "logs:PutLogEvents",
  "logs:TagResource",
];
const CORS_HEADERS = [
  "Content-Type",
  "Accept",
  "Authorization",
  "Mcp-Session-Id",
  "MCP-Protocol-Version",
  "Last-Event-ID",
];
const MB = 1024 * 1024;

let service: { dir: string; dispose(): Promise<void> };

beforeAll(async () => {
  service = await copyService();
}, 60_000);

afterAll(async () => {
  await service?.dispose();
});

async function packageTo(name: string, params: string[] = []): Promise<{ run: SlsRun; dir: string }> {
  const dir = join(service.dir, name);
  const run = await runSls(["package", "--package", dir, ...params.map((param) => `--param=${param}`)], {
    cwd: service.dir,
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
    expect(properties.Handler).toBe("src/handler.handler");
    expect(properties.Timeout).toBeLessThan(30);
    expect(properties.MemorySize).toBeGreaterThanOrEqual(256);
    expect(properties.MemorySize).toBeLessThanOrEqual(1024);
  });

  it("configures the application with its documented defaults", () => {
    const properties = resourcesOf(template, "AWS::Lambda::Function")[0]?.Properties ?? {};
    expect((properties.Environment as { Variables: Json }).Variables).toEqual({
      PROMETHEUS_URL: "",
      PROMETHEUS_AUTH: "sigv4",
      AMP_ENDPOINT: "",
      PYTHON_COMPAT: "false",
      ALLOWED_ORIGINS: "",
      MAX_BODY_BYTES: "1048576",
      LOG_LEVEL: "INFO",
      SESSIONS: "optional",
      SESSION_TTL_SECONDS: "86400",
    });
  });

  it("routes POST, GET and DELETE /mcp behind AWS_IAM and a public GET /health", () => {
    const byKey = routes(template);
    expect([...byKey.keys()].sort()).toEqual(["DELETE /mcp", "GET /health", "GET /mcp", "POST /mcp"]);
    for (const key of ["POST /mcp", "GET /mcp", "DELETE /mcp"]) {
      expect(byKey.get(key)?.AuthorizationType, key).toBe("AWS_IAM");
    }
    expect(byKey.get("GET /health")?.AuthorizationType ?? "NONE").toBe("NONE");
    expect(resourcesOf(template, "AWS::ApiGatewayV2::Authorizer")).toEqual([]);
  });

  it("lets browsers send the MCP headers and read Mcp-Session-Id (CORS)", () => {
    const api = resourcesOf(template, "AWS::ApiGatewayV2::Api")[0]?.Properties ?? {};
    const cors = api.CorsConfiguration as {
      AllowHeaders: string[];
      ExposeHeaders: string[];
      AllowMethods: string[];
    };
    expect(cors.AllowHeaders).toEqual(expect.arrayContaining(CORS_HEADERS));
    expect(cors.ExposeHeaders).toEqual(["Mcp-Session-Id"]);
    expect(cors.AllowMethods).toEqual(expect.arrayContaining(["GET", "POST", "DELETE", "OPTIONS"]));
  });

  it("grants exactly the six read-only aps actions, ListWorkspaces alone on *", () => {
    const role = resourcesOf(template, "AWS::IAM::Role")[0]?.Properties ?? {};
    const statements = (role.Policies as { PolicyDocument: { Statement: Statement[] } }[]).flatMap(
      (policy) => policy.PolicyDocument.Statement,
    );
    const actions = statements.flatMap((statement) => [statement.Action].flat());
    for (const action of actions) expect(action).not.toContain("*");
    expect(statements.every((statement) => statement.Effect === "Allow")).toBe(true);
    expect(actions.filter((action) => action.startsWith("aps:")).sort()).toEqual(APS_ACTIONS);
    expect(
      actions.filter((action) => !action.startsWith("aps:")).every((a) => FRAMEWORK_LOG_ACTIONS.includes(a)),
    ).toBe(true);
    for (const statement of statements) {
      const statementActions = [statement.Action].flat();
      if (
        JSON.stringify(statement.Resource) === JSON.stringify("*") ||
        JSON.stringify(statement.Resource) === '["*"]'
      ) {
        expect(statementActions).toEqual(["aps:ListWorkspaces"]);
      } else if (statementActions.some((action) => action.startsWith("aps:"))) {
        expect(JSON.stringify(statement.Resource)).toContain("workspace/*");
      }
    }
    expect(resourcesOf(template, "AWS::DynamoDB::Table")).toEqual([]);
  });

  it("ships one minified ESM bundle (.mjs, AWS SDK included) that loads without a package.json", async () => {
    const artifact = join(dir, "mcp.zip");
    const { size } = await stat(artifact);
    const entries = readZip(await readFile(artifact));
    const bundle = entries.get("src/handler.mjs");
    console.log(
      `mcp.zip: ${(size / 1024).toFixed(1)} KiB (${[...entries.keys()].join(", ")}; ` +
        `src/handler.mjs ${((bundle?.length ?? 0) / 1024).toFixed(1)} KiB unzipped)`,
    );
    expect([...entries.keys()]).toEqual(["src/handler.mjs"]);
    expect(size).toBeLessThan(5 * MB);
    const code = bundle?.toString("utf8") ?? "";
    expect(code).toContain("createRequire");
    expect(code).toMatch(/ListWorkspacesCommand|ListWorkspaces/);

    // Load it the way the Lambda runtime loads an .mjs handler: a directory with no package.json.
    const taskRoot = await mkdtemp(join(tmpdir(), "pml-task-"));
    try {
      const file = join(taskRoot, "handler.mjs");
      await writeFile(file, bundle ?? "");
      const event = JSON.parse(await readFile(join(ROOT, "events", "v2-health.json"), "utf8"));
      const reply = await runModule(
        taskRoot,
        `const { handler } = await import(${JSON.stringify(pathToFileURL(file).href)});
         const context = { awsRequestId: "test", functionName: "mcp", getRemainingTimeInMillis: () => 29000 };
         process.stdout.write(JSON.stringify(await handler(${JSON.stringify(event)}, context)));`,
      );
      expect(reply.code, reply.stderr).toBe(0);
      const response = JSON.parse(reply.stdout) as { statusCode: number; body: string };
      expect(response.statusCode).toBe(200);
      expect(JSON.parse(response.body)).toMatchObject({ status: "healthy" });
    } finally {
      await rm(taskRoot, { recursive: true, force: true });
    }
  });
});

describe("serverless package --param=auth=jwt", () => {
  it("puts a JWT authorizer on every /mcp route and none on /health", async () => {
    const { run, dir } = await packageTo("package-jwt", [
      "auth=jwt",
      "jwtIssuer=https://cognito-idp.us-east-1.amazonaws.com/us-east-1_AbCdEfGhI",
      "jwtAudience=5r0abc123example",
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
    }
    expect(byKey.get("GET /health")?.AuthorizationType ?? "NONE").toBe("NONE");
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

function runModule(
  cwd: string,
  source: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", source], {
      cwd,
      env: { ...process.env, LOG_LEVEL: "SILENT", AWS_REGION: "us-east-1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}
