// The API Gateway stage of the front door (scripts/front-door.cjs), which the framework cannot express:
//
// - HTTP API (frontDoor httpApi, functionUrl): the stage's default route throttling (throttleRateLimit,
//   throttleBurstLimit); the framework only fills DefaultRouteSettings with DetailedMetricsEnabled.
// - REST API (frontDoor streaming): a stage of the stack's own, where the framework would set access
//   logs and tracing through the SDK at deploy time (outside the template, so neither packaging nor
//   cfn-lint could see them): every method throttled as above, X-Ray tracing with the `tracing`
//   parameter, and one JSON access-log line per request in /aws/api-gateway/<service>-<stage>, kept as
//   long as the function's logs. API Gateway writes REST access logs with the account's CloudWatch
//   role (API Gateway settings, once per account and region): docs/troubleshooting.md.
//
// It edits the compiled template after the resources of serverless.yml are merged in, before it is saved.

const ACCESS_LOG_GROUP_ID = "RestApiAccessLogGroup";

// The REST API's own variables: resourcePath and httpMethod where the HTTP API has routeKey, and the
// IAM caller's ARN (REST APIs here take auth=iam only).
const REST_ACCESS_LOG_FORMAT = JSON.stringify({
  requestId: "$context.requestId",
  requestTime: "$context.requestTime",
  ip: "$context.identity.sourceIp",
  userAgent: "$context.identity.userAgent",
  userArn: "$context.identity.userArn",
  httpMethod: "$context.httpMethod",
  resourcePath: "$context.resourcePath",
  status: "$context.status",
  responseLength: "$context.responseLength",
  responseLatency: "$context.responseLatency",
  integrationLatency: "$context.integration.latency",
  integrationStatus: "$context.integration.status",
  integrationError: "$context.integration.error",
  errorMessage: "$context.error.message",
});

class FrontDoorStage {
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = {
      "before:aws:package:finalize:saveServiceState": () => this.configureStage(),
    };
  }

  configureStage() {
    const { service, provider } = this.serverless.service;
    const template = provider.compiledCloudFormationTemplate;
    const custom = this.serverless.service.custom.frontDoorStage;
    const throttling = {
      ThrottlingRateLimit: Number(custom.throttleRateLimit),
      ThrottlingBurstLimit: Number(custom.throttleBurstLimit),
    };
    const httpStage = template.Resources.HttpApiStage;
    if (httpStage !== undefined) {
      httpStage.Properties.DefaultRouteSettings = {
        ...httpStage.Properties.DefaultRouteSettings,
        ...throttling,
      };
    }
    const deploymentId = Object.keys(template.Resources).find(
      (id) => template.Resources[id].Type === "AWS::ApiGateway::Deployment",
    );
    if (deploymentId === undefined) return;
    const deployment = template.Resources[deploymentId];
    const stageName = deployment.Properties.StageName;
    // The stage is its own resource now: the deployment only snapshots the API.
    delete deployment.Properties.StageName;
    template.Resources[ACCESS_LOG_GROUP_ID] = {
      Type: "AWS::Logs::LogGroup",
      Properties: {
        LogGroupName: `/aws/api-gateway/${service}-${stageName}`,
        RetentionInDays: provider.logRetentionInDays,
      },
    };
    template.Resources.ApiGatewayStage = {
      Type: "AWS::ApiGateway::Stage",
      Properties: {
        RestApiId: { Ref: "ApiGatewayRestApi" },
        DeploymentId: { Ref: deploymentId },
        StageName: stageName,
        TracingEnabled: custom.tracing === true,
        MethodSettings: [{ ResourcePath: "/*", HttpMethod: "*", ...throttling }],
        AccessLogSetting: {
          DestinationArn: { "Fn::GetAtt": [ACCESS_LOG_GROUP_ID, "Arn"] },
          Format: REST_ACCESS_LOG_FORMAT,
        },
      },
    };
  }
}

module.exports = FrontDoorStage;
