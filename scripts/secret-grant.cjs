// The function role's grant to read PROMETHEUS_SECRET (the `prometheusSecret` parameter), and nothing
// else: secretsmanager:GetSecretValue on that one secret, or ssm:GetParameter on that one parameter.
//
// - A Secrets Manager secret is named by its ARN. Its full ARN ends in `-` and six characters AWS adds;
//   an ARN given without them ends in the secret's name, which can look the same (`…:secret:my-secret`):
//   both the ARN as given and `<ARN>-??????` are granted, which match that one secret either way.
// - An SSM parameter is `ssm:/path` (in the stack's region and account) or `ssm:` and its ARN.
// - Both are decrypted with the key that encrypts them. With the AWS managed keys (aws/secretsmanager,
//   aws/ssm) the key policy lets the role use it through the service; a customer managed key needs
//   kms:Decrypt in its own key policy (docs/configuration.md, "Any Prometheus").
//
// Packaging and deploying refuse a value that is neither (the credentials themselves): the template, and
// so CloudFormation and the function's configuration, would hold them. `invoke local` and `npm start`
// (nothing deployed) accept one; the application warns at start. No message repeats the value.
"use strict";

const { local } = require("./command-settings.cjs");

/** The application's own reading of PROMETHEUS_SECRET (src/prometheus/secrets.ts), compiled. */
function secretSourceOf(text) {
  // The region only fills in a parameter path's, which the grant takes from the stack instead.
  return require("./app-config.cjs").appConfig().secretSourceOf(text, "us-east-1");
}

function refuse(expected) {
  const error = new Error(`Invalid parameter prometheusSecret (expected ${expected})`);
  error.stack = error.message;
  throw error;
}

/** The statement granting `value` (the prometheusSecret parameter); undefined when it is unset or local. */
function secretStatement(value, isLocal = local) {
  const text = String(value ?? "").trim();
  if (text === "") return undefined;
  let source;
  try {
    source = secretSourceOf(text);
  } catch (error) {
    refuse(error.message);
  }
  const statement = statementOf(source);
  if (statement !== undefined || isLocal) return statement;
  refuse(
    "a Secrets Manager secret ARN or ssm:/parameter: the credentials themselves would be written into the template and the function's configuration",
  );
}

/** The grant of one secret source (as the application reads it); undefined for a literal one. */
function statementOf(source) {
  if (source?.kind === "secretsmanager") {
    return {
      Effect: "Allow",
      Action: ["secretsmanager:GetSecretValue"],
      Resource: [source.arn, `${source.arn}-??????`],
    };
  }
  if (source?.kind === "ssm") {
    // A path is in the stack's partition, region and account; an ARN names its own.
    const resource = source.name.startsWith("/")
      ? { "Fn::Sub": `arn:\${AWS::Partition}:ssm:\${AWS::Region}:\${AWS::AccountId}:parameter${source.name}` }
      : source.name;
    return { Effect: "Allow", Action: ["ssm:GetParameter"], Resource: [resource] };
  }
  return undefined;
}

/**
 * The grants of the backends' secrets (the `backends` parameter), one statement per secret. Parsed in
 * Lambda's rules unless local: a backend holding its credentials themselves is refused (one line that
 * does not repeat them).
 */
function backendSecretStatements(value, isLocal = local) {
  const { backendSpecs } = require("./backends.cjs");
  return backendSpecs(value, isLocal)
    .map((backend) => statementOf(backend.secret))
    .filter((statement) => statement !== undefined);
}

module.exports = { secretStatement, backendSecretStatements };
