// The AlarmActions / OKActions of every alarm (serverless.yml, custom.alarmActions): the alarmTopicArn
// parameter's SNS topic, or none. Decided here rather than by a CloudFormation condition on a parameter
// that is known when packaging: both branches of such a condition are linted, and the empty one is
// an error to cfn-lint.

/** `arn:<partition>:sns:<region>:<account>:<topic>[.fifo]`, the region as the application reads one (app-config.cjs). */
function snsTopicArn() {
  const { REGION_SYNTAX } = require("./app-config.cjs").appConfig();
  return new RegExp(
    String.raw`^arn:aws[a-z-]*:sns:${REGION_SYNTAX.source}:\d{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$`,
  );
}

module.exports = {
  actions: async ({ resolveVariable }) => {
    const value = await resolveVariable("param:alarmTopicArn");
    const topic = value === undefined || value === null ? "" : String(value).trim();
    if (topic === "") return { Ref: "AWS::NoValue" };
    if (!snsTopicArn().test(topic)) {
      const error = new Error(
        `alarmTopicArn: ${JSON.stringify(topic)} is not an SNS topic ARN (arn:aws:sns:<region>:<account>:<topic>)`,
      );
      error.stack = error.message; // osls prints the stack: one line is what to fix
      throw error;
    }
    return [topic];
  },
};
