// The function role's statements (serverless.yml, provider.iam.role.statements): the aps actions of the
// tools the deployment serves, and item access to the sessions table.
//
// Which tools are served: the `tools` parameter (TOOLS) and pythonCompat (PYTHON_COMPAT), read by the
// application's own reading of TOOLS (src/config/tools.ts, compiled: scripts/app-config.cjs): names and
// groups of tools/catalog.json; unset or empty, all, or core when pythonCompat is true.
// Each tool's aps actions are in tools/catalog.json (the one list of them); the role gets their union:
//
// - aps:ListWorkspaces (GetAvailableWorkspaces) has no resource type: its own statement on "*", in the
//   deployed regions only (aws:RequestedRegion, scripts/workspace-arns.cjs requestedRegions).
// - aps:DescribeWorkspace: its own statement on every workspace of the deployed regions
//   (describeResources).
// - every other action reads a workspace's data (queries, labels, series, metadata, rules, alerts,
//   Alertmanager silences): one statement, actions sorted, on the workspaces the deployment may read
//   (dataResources: those prometheusUrl / allowedWorkspaces name, else workspace/*).
//
// A statement with no action is left out. An unknown name fails `serverless package` / `deploy` with one
// line naming it and the valid names. The function gets the parameter as given (TOOLS), and the
// application checks it too.
const { join } = require("node:path");
const { readFileSync } = require("node:fs");
const { requestedRegions, describeResources, dataResources } = require("./workspace-arns.cjs");
const { backendSecretStatements, secretStatement } = require("./secret-grant.cjs");
const { appConfig } = require("./app-config.cjs");

/** tools/catalog.json: { groups: { <group>: [tool…] }, actions: { <tool>: [aps action…] } }. */
const CATALOG = JSON.parse(readFileSync(join(__dirname, "..", "tools", "catalog.json"), "utf8"));

const LIST_WORKSPACES = "aps:ListWorkspaces";
const DESCRIBE_WORKSPACE = "aps:DescribeWorkspace";

function text(value) {
  return value === undefined || value === null ? "" : String(value).trim();
}

/** An error osls prints as this one line (it prints the stack). */
function oneLine(message) {
  const error = new Error(message);
  error.stack = error.message;
  return error;
}

/**
 * The tools served for a `tools` value and `pythonCompat` flag, in catalog order without repeats, as the
 * application reads TOOLS and PYTHON_COMPAT (one reading, compiled from src/config/). Throws (one line) on
 * an entry that is neither a tool nor a group, and on a value with no entry at all (",").
 */
function servedTools(tools, pythonCompat) {
  const app = appConfig();
  const valid = `groups: ${[...Object.keys(app.TOOL_GROUPS), "all"].join(", ")}; tools: ${app.ALL_TOOLS.join(", ")}`;
  const given = text(tools);
  const entries = given === "" ? undefined : app.toolEntries(given);
  if (entries?.length === 0) {
    throw oneLine(`tools / TOOLS: ${JSON.stringify(given)} names no tool (${valid})`);
  }
  const unknown = app.unknownToolEntry(entries ?? []);
  if (unknown !== undefined) {
    throw oneLine(`tools / TOOLS: ${JSON.stringify(unknown)} is neither a tool nor a group (${valid})`);
  }
  // PYTHON_COMPAT as the application reads it; a value it refuses stops the settings check anyway.
  const compat = app.SETTINGS.PYTHON_COMPAT.safeParse(text(pythonCompat) || undefined);
  return app.servedTools(entries, compat.success && compat.data, false);
}

/** The aps actions the tools call, sorted. */
function apsActions(tools, catalog = CATALOG) {
  return [...new Set(tools.flatMap((tool) => catalog.actions[tool] ?? []))].sort();
}

/**
 * The aps statements for `actions`, on the resources given (as scripts/workspace-arns.cjs builds them):
 * ListWorkspaces, DescribeWorkspace, the data actions, each only when it has an action.
 */
function apsStatements(actions, { requestedRegions, describeResources, dataResources }) {
  const statements = [];
  if (actions.includes(LIST_WORKSPACES)) {
    statements.push({
      Effect: "Allow",
      Action: [LIST_WORKSPACES],
      Resource: "*",
      Condition: { StringEquals: { "aws:RequestedRegion": requestedRegions } },
    });
  }
  if (actions.includes(DESCRIBE_WORKSPACE)) {
    statements.push({ Effect: "Allow", Action: [DESCRIBE_WORKSPACE], Resource: describeResources });
  }
  const data = actions.filter((action) => action !== LIST_WORKSPACES && action !== DESCRIBE_WORKSPACE).sort();
  if (data.length > 0) statements.push({ Effect: "Allow", Action: data, Resource: dataResources });
  return statements;
}

/** Sessions: single-item reads and writes on the stack's sessions table only (no Scan / Query). */
const SESSIONS_STATEMENT = {
  Effect: "Allow",
  Action: ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"],
  Resource: [{ "Fn::GetAtt": ["SessionsTable", "Arn"] }],
};

/**
 * frontDoor=streaming keeps stream events in the same table and reads a stream's next events by key in
 * one call (BatchGetItem; still no Scan / Query): src/sessions/streamEvents.ts.
 */
const STREAMING_SESSIONS_STATEMENT = {
  ...SESSIONS_STATEMENT,
  Action: [...SESSIONS_STATEMENT.Action, "dynamodb:BatchGetItem"],
};

module.exports = {
  servedTools,
  apsActions,
  apsStatements,
  SESSIONS_STATEMENT,
  STREAMING_SESSIONS_STATEMENT,
  /**
   * provider.iam.role.statements: the served tools' aps statements, then the sessions table's, then
   * the read of PROMETHEUS_SECRET when one is set and of each backend's secret (scripts/secret-grant.cjs).
   */
  statements: async ({ resolveVariable }) => {
    const tools = servedTools(
      await resolveVariable("param:tools"),
      await resolveVariable("param:pythonCompat"),
    );
    // Resolved (and so checked) whatever is served, as before: a bad regions / allowedWorkspaces value
    // fails the same way with any tools.
    const resources = {
      requestedRegions: await requestedRegions({ resolveVariable }),
      describeResources: await describeResources({ resolveVariable }),
      dataResources: await dataResources({ resolveVariable }),
    };
    const streaming = (await resolveVariable("param:frontDoor")) === "streaming";
    const sessions = streaming ? STREAMING_SESSIONS_STATEMENT : SESSIONS_STATEMENT;
    const secret = secretStatement(await resolveVariable("param:prometheusSecret"));
    const backendSecrets = backendSecretStatements(await resolveVariable("param:backends"));
    return [
      ...apsStatements(apsActions(tools), resources),
      sessions,
      ...(secret ? [secret] : []),
      ...backendSecrets,
    ];
  },
};
