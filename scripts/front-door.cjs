// The `frontDoor` parameter (serverless.yml): which front door calls the function, and how.
//
//   httpApi      the HTTP API (buffered answers, 30 s), the default.
//   functionUrl  the HTTP API and a buffered Function URL (AWS_IAM) beside it (resources.McpFunctionUrl).
//   streaming    a REST API whose Lambda proxy integrations stream (responseTransferMode STREAM, up to
//                15 min, 5 min idle) and a Function URL in RESPONSE_STREAM mode, both served by the
//                streaming entry (src/lambda/streamHandler.ts). No HTTP API: its integrations cannot stream,
//                and a streaming handler's framed answer is no payload an HTTP API can read.
//
// `invoke local` and `offline` (`npm start`) run the buffered handler in every mode (see `handler`).
//
// Every front door serves the same routes: /mcp (POST, GET, DELETE) behind the auth parameter's
// authorizer, and the public /health and OAuth protected resource metadata. The REST API also routes
// OPTIONS /mcp to the function, which answers browsers' preflights itself (src/http/cors.json), as the
// HTTP API and Function URLs answer theirs.

const { local } = require("./command-settings.cjs");

const ROUTES = [
  { method: "POST", path: "/mcp", authorized: true },
  { method: "GET", path: "/mcp", authorized: true },
  { method: "DELETE", path: "/mcp", authorized: true },
  { method: "GET", path: "/health", authorized: false },
  { method: "GET", path: "/.well-known/oauth-protected-resource", authorized: false },
  { method: "GET", path: "/.well-known/oauth-protected-resource/mcp", authorized: false },
];

const DOORS = {
  httpApi: { handler: "src/lambda/handler.handler", timeout: 29, streaming: false },
  functionUrl: { handler: "src/lambda/handler.handler", timeout: 120, streaming: false },
  // The REST API streams for up to 15 minutes; 5 minutes of function time is what a slow query needs
  // (Prometheus's own default query timeout is 2 minutes) without a stuck call billing for 15.
  streaming: { handler: "src/lambda/streamHandler.handler", timeout: 300, streaming: true },
};

async function frontDoor(resolveVariable) {
  const name = await resolveVariable("param:frontDoor");
  const door = DOORS[name];
  if (door === undefined) {
    throw new Error(`frontDoor: "${name}" is not one of ${Object.keys(DOORS).join(", ")}`);
  }
  return { name, ...door };
}

async function events(resolveVariable) {
  const door = await frontDoor(resolveVariable);
  const auth = await resolveVariable("param:auth");
  if (!door.streaming) {
    const authorizer = await resolveVariable(`self:custom.auth.${auth}.authorizer`);
    return ROUTES.map(({ method, path, authorized }) => ({
      httpApi: { method, path, ...(authorized ? { authorizer } : {}) },
    }));
  }
  if (auth !== "iam") {
    // Neither streaming front door has a JWT authorizer: a REST API takes Cognito user pools or a Lambda
    // authorizer, a Function URL AWS_IAM or none.
    throw new Error(
      `frontDoor=streaming takes auth=iam only (not ${auth}): REST APIs have no JWT authorizer and Function URLs take AWS_IAM or none`,
    );
  }
  // Each integration streams (InvokeWithResponseStream) and waits as long as the function may run.
  const streamed = { response: { transferMode: "STREAM" }, timeoutInMillis: door.timeout * 1000 };
  const rest = ROUTES.map(({ method, path, authorized }) => ({
    http: { method, path, ...streamed, ...(authorized ? { authorizer: "aws_iam" } : {}) },
  }));
  return [...rest, { http: { method: "OPTIONS", path: "/mcp", ...streamed } }];
}

/** The MCP endpoint the stack outputs (McpUrl): the HTTP API's /mcp, or the REST API stage's. */
async function mcpUrl(resolveVariable) {
  const door = await frontDoor(resolveVariable);
  const api = door.streaming ? "ApiGatewayRestApi" : "HttpApi";
  const stagePath = door.streaming ? `/${await resolveVariable("sls:stage")}` : "";
  return {
    "Fn::Join": [
      "",
      [
        "https://",
        { Ref: api },
        ".execute-api.",
        { Ref: "AWS::Region" },
        ".",
        { Ref: "AWS::URLSuffix" },
        `${stagePath}/mcp`,
      ],
    ],
  };
}

/**
 * The dashboard's API Gateway graph (requests, 4xx with the throttled 429s, 5xx): an HTTP API's
 * metrics are Count, 4xx and 5xx by ApiId; a REST API's are Count, 4XXError and 5XXError by ApiName
 * (the framework names it <stage>-<service>) and Stage.
 */
async function apiGatewayMetrics(resolveVariable) {
  const door = await frontDoor(resolveVariable);
  const rows = (dimensions, metrics) =>
    metrics
      .map(
        (metric, index) =>
          `["AWS/ApiGateway", "${metric}", ${dimensions}, {"stat": "Sum", "label": "${["requests", "4xx", "5xx"][index]}"}]`,
      )
      .join(",\n");
  if (door.streaming) {
    const stage = await resolveVariable("sls:stage");
    const service = await resolveVariable("self:service");
    return rows(`"ApiName", "${stage}-${service}", "Stage", "${stage}"`, ["Count", "4XXError", "5XXError"]);
  }
  // The HTTP API's id is known at deploy time only: Fn::Join puts it where each row names the API.
  const pieces = rows('"ApiId", "\0"', ["Count", "4xx", "5xx"]).split("\0");
  return {
    "Fn::Join": ["", pieces.flatMap((piece, index) => (index === 0 ? [piece] : [{ Ref: "HttpApi" }, piece]))],
  };
}

module.exports = {
  // `invoke local` and `offline` (`npm start`) run the buffered handler whatever the front door: neither
  // runs a streaming handler (there is no awslambda.streamifyResponse there), and the REST API's events
  // reach the buffered handler as well as the HTTP API's.
  handler: async ({ resolveVariable }) =>
    local ? "src/lambda/handler.handler" : (await frontDoor(resolveVariable)).handler,
  timeout: async ({ resolveVariable }) => (await frontDoor(resolveVariable)).timeout,
  streaming: async ({ resolveVariable }) => (await frontDoor(resolveVariable)).streaming,
  // The Function URL (frontDoor functionUrl or streaming): buffered, or streamed.
  invokeMode: async ({ resolveVariable }) =>
    (await frontDoor(resolveVariable)).streaming ? "RESPONSE_STREAM" : "BUFFERED",
  events: async ({ resolveVariable }) => events(resolveVariable),
  mcpUrl: async ({ resolveVariable }) => mcpUrl(resolveVariable),
  apiGatewayMetrics: async ({ resolveVariable }) => apiGatewayMetrics(resolveVariable),
};
