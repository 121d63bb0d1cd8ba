// The function role's statements (serverless.yml, provider.iam.role.statements): the aps actions of the
// tools the deployment serves, and item access to the sessions table.
//
// Which tools are served: the `tools` parameter (TOOLS), a comma-separated list of tool names
// (ExecuteQuery, FindSeries, …) and groups (core, discovery, alerting, all) as tools/catalog.json names
// them. Names are case-sensitive, groups lower-case; whitespace around an entry and empty entries are
// ignored (but a value must name one: "," is refused). Unset or empty: all, or core when pythonCompat
// (PYTHON_COMPAT) is true; a given value wins. The same rules as the application's (src/config.ts).
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

/** tools/catalog.json: { groups: { <group>: [tool…] }, actions: { <tool>: [aps action…] } }. */
const CATALOG = JSON.parse(readFileSync(join(__dirname, "..", "tools", "catalog.json"), "utf8"));

const LIST_WORKSPACES = "aps:ListWorkspaces";
const DESCRIBE_WORKSPACE = "aps:DescribeWorkspace";

function text(value) {
  return value === undefined || value === null ? "" : String(value).trim();
}

/** PYTHON_COMPAT as the application reads it (src/config.ts): true, 1 or yes, any case. */
function isTrue(value) {
  return /^(true|1|yes)$/i.test(text(value));
}

/** Every tool of the catalog, in its order. */
function allTools(catalog = CATALOG) {
  return Object.keys(catalog.actions);
}

/** The groups: the catalog's, and `all`. */
function groups(catalog = CATALOG) {
  return { ...catalog.groups, all: allTools(catalog) };
}

/** An error osls prints as this one line (it prints the stack). */
function oneLine(message) {
  const error = new Error(message);
  error.stack = error.message;
  return error;
}

/**
 * The tools served for a `tools` value and `pythonCompat` flag, in catalog order without repeats, as the
 * application reads TOOLS (src/config.ts). Throws (one line) on an entry that is neither a tool nor a
 * group, and on a value with no entry at all (",").
 */
function servedTools(tools, pythonCompat, catalog = CATALOG) {
  const byGroup = groups(catalog);
  const valid = `groups: ${Object.keys(byGroup).join(", ")}; tools: ${allTools(catalog).join(", ")}`;
  const given = text(tools);
  const entries = (given === "" ? (isTrue(pythonCompat) ? "core" : "all") : given)
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  if (entries.length === 0) {
    throw oneLine(`tools / TOOLS: ${JSON.stringify(given)} names no tool (${valid})`);
  }
  const wanted = new Set();
  for (const entry of entries) {
    if (Object.hasOwn(byGroup, entry)) {
      for (const tool of byGroup[entry]) wanted.add(tool);
    } else if (Object.hasOwn(catalog.actions, entry)) {
      wanted.add(entry);
    } else {
      throw oneLine(`tools / TOOLS: ${JSON.stringify(entry)} is neither a tool nor a group (${valid})`);
    }
  }
  return allTools(catalog).filter((tool) => wanted.has(tool));
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
