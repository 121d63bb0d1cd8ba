import type { Context } from "aws-lambda";

export type EventFormat = "v2" | "v1" | "url";
export const EVENT_FORMATS: readonly EventFormat[] = ["v2", "v1", "url"];

export interface HttpCall {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  base64?: boolean;
  requestId?: string;
  principal?: string;
}

/** Builds a Lambda event of the given shape the way API Gateway / Function URLs deliver it. */
export function httpEvent(format: EventFormat, call: HttpCall): Record<string, unknown> {
  const body =
    call.body === undefined ? undefined : call.base64 ? Buffer.from(call.body).toString("base64") : call.body;
  const requestId = call.requestId ?? "req-test";
  if (format === "v1") {
    const multiValueHeaders = Object.fromEntries(
      Object.entries(call.headers ?? {}).map(([k, v]) => [k, [v]]),
    );
    return {
      resource: "/{proxy+}",
      path: call.path,
      httpMethod: call.method,
      headers: call.headers ?? {},
      multiValueHeaders,
      queryStringParameters: null,
      requestContext: {
        requestId,
        stage: "prod",
        identity: { userArn: call.principal ?? null, sourceIp: "127.0.0.1" },
      },
      body: body ?? null,
      isBase64Encoded: call.base64 === true,
    };
  }
  const headers = Object.fromEntries(
    Object.entries(call.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]),
  );
  return {
    version: "2.0",
    routeKey: format === "url" ? "$default" : `${call.method} ${call.path}`,
    rawPath: call.path,
    rawQueryString: "",
    headers,
    requestContext: {
      requestId,
      domainName:
        format === "url" ? "abc.lambda-url.us-east-1.on.aws" : "abc.execute-api.us-east-1.amazonaws.com",
      http: {
        method: call.method,
        path: call.path,
        protocol: "HTTP/1.1",
        sourceIp: "127.0.0.1",
        userAgent: "test",
      },
      ...(call.principal ? { authorizer: { iam: { userArn: call.principal } } } : {}),
      stage: "$default",
    },
    ...(body === undefined ? {} : { body }),
    isBase64Encoded: call.base64 === true,
  };
}

export function lambdaContext(remainingMs = 30_000): Context {
  const started = Date.now();
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: "prometheus-mcp-lambda-test-mcp",
    functionVersion: "$LATEST",
    invokedFunctionArn: "arn:aws:lambda:us-east-1:123456789012:function:prometheus-mcp-lambda-test-mcp",
    memoryLimitInMB: "512",
    awsRequestId: "aws-req-test",
    logGroupName: "/aws/lambda/test",
    logStreamName: "test",
    getRemainingTimeInMillis: () => Math.max(0, remainingMs - (Date.now() - started)),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
