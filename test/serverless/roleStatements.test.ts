import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config/index.js";
import { ROOT } from "./sls.js";

/**
 * scripts/role-statements.cjs, the function role's statements, without packaging: which tools a `tools`
 * value serves, the aps actions they call (tools/catalog.json), and the statements granting them.
 */

interface Statement {
  Effect: string;
  Action: string[];
  Resource: unknown;
  Condition?: unknown;
}
interface Catalog {
  groups: Record<string, string[]>;
  actions: Record<string, string[]>;
}
interface RoleStatements {
  servedTools(tools: unknown, pythonCompat: unknown): string[];
  apsActions(tools: string[]): string[];
  apsStatements(
    actions: string[],
    resources: { requestedRegions: unknown; describeResources: unknown; dataResources: unknown },
  ): Statement[];
  SESSIONS_STATEMENT: Statement;
  statements(options: { resolveVariable(address: string): Promise<unknown> }): Promise<Statement[]>;
}

const script = createRequire(import.meta.url)(join(ROOT, "scripts", "role-statements.cjs")) as RoleStatements;
const catalog = JSON.parse(readFileSync(join(ROOT, "tools", "catalog.json"), "utf8")) as Catalog;

const ALL_TOOLS = Object.keys(catalog.actions);
const CORE = ["ExecuteQuery", "ExecuteRangeQuery", "ListMetrics", "GetServerInfo", "GetAvailableWorkspaces"];
/** Written out, not derived: a catalog that lost or gained an action fails here. */
const ALL_ACTIONS = [
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
const CORE_ACTIONS = ["aps:DescribeWorkspace", "aps:GetLabels", "aps:ListWorkspaces", "aps:QueryMetrics"];
const OWN_STATEMENT = ["aps:ListWorkspaces", "aps:DescribeWorkspace"];

/** Stand-ins for the resources scripts/workspace-arns.cjs builds. */
const RESOURCES = {
  requestedRegions: ["<regions>"],
  describeResources: ["<every workspace>"],
  dataResources: ["<readable workspaces>"],
};

/** The aps actions of `tools`, straight from the catalog. */
function catalogActions(tools: string[]): string[] {
  return [...new Set(tools.flatMap((tool) => catalog.actions[tool] ?? []))].sort();
}

/** The error `servedTools` throws, or undefined. */
function refusal(tools: string, pythonCompat = "false"): Error | undefined {
  try {
    script.servedTools(tools, pythonCompat);
  } catch (error) {
    return error as Error;
  }
  return undefined;
}

/** Checks the shape of the statements for `actions` and returns them. */
function expectStatements(actions: string[]): Statement[] {
  const statements = script.apsStatements(actions, RESOURCES);
  for (const statement of statements) {
    expect(statement.Effect).toBe("Allow");
    expect(statement.Action.length).toBeGreaterThan(0);
  }
  expect(statements.flatMap((statement) => statement.Action).sort()).toEqual([...actions].sort());
  const list = statements.filter((statement) => statement.Action.includes("aps:ListWorkspaces"));
  expect(list).toEqual(
    actions.includes("aps:ListWorkspaces")
      ? [
          {
            Effect: "Allow",
            Action: ["aps:ListWorkspaces"],
            Resource: "*",
            Condition: { StringEquals: { "aws:RequestedRegion": RESOURCES.requestedRegions } },
          },
        ]
      : [],
  );
  const describe = statements.filter((statement) => statement.Action.includes("aps:DescribeWorkspace"));
  expect(describe).toEqual(
    actions.includes("aps:DescribeWorkspace")
      ? [{ Effect: "Allow", Action: ["aps:DescribeWorkspace"], Resource: RESOURCES.describeResources }]
      : [],
  );
  const dataActions = actions.filter((action) => !OWN_STATEMENT.includes(action)).sort();
  const data = statements.filter((statement) => statement.Resource === RESOURCES.dataResources);
  expect(data).toEqual(
    dataActions.length > 0
      ? [{ Effect: "Allow", Action: dataActions, Resource: RESOURCES.dataResources }]
      : [],
  );
  return statements;
}

describe("role statements: the tools served", () => {
  it("unset or empty: all tools; core under pythonCompat (true, 1, yes, any case)", () => {
    for (const tools of [undefined, null, "", "  "]) {
      expect(script.servedTools(tools, "false"), String(tools)).toEqual(ALL_TOOLS);
      expect(script.servedTools(tools, undefined), String(tools)).toEqual(ALL_TOOLS);
      expect(script.servedTools(tools, "true"), String(tools)).toEqual(CORE);
    }
    for (const yes of ["true", "TRUE", " True ", "1", "yes", true]) {
      expect(script.servedTools("", yes), String(yes)).toEqual(CORE);
    }
    for (const no of ["false", "0", "no", "", "garbage", false]) {
      expect(script.servedTools("", no), String(no)).toEqual(ALL_TOOLS);
    }
    expect(ALL_TOOLS).toHaveLength(15);
    expect(catalog.groups.core).toEqual(CORE);
  });

  it("a given value wins over pythonCompat", () => {
    expect(script.servedTools("all", "true")).toEqual(ALL_TOOLS);
    expect(script.servedTools("alerting", "true")).toEqual([
      "GetHealthOverview",
      "ListAlerts",
      "ListRules",
      "ListSilences",
      "GetAlertHistory",
    ]);
    expect(script.servedTools("FindSeries", "true")).toEqual(["FindSeries"]);
  });

  it("groups and names mix; whitespace and empty entries are ignored; catalog order, no repeats", () => {
    expect(script.servedTools(" discovery , ,ExecuteQuery,,FindSeries ", "false")).toEqual([
      "ExecuteQuery",
      "ListLabels",
      "ListLabelValues",
      "FindSeries",
      "GetMetricMetadata",
    ]);
    expect(script.servedTools("core,discovery,alerting,charts", "false")).toEqual(ALL_TOOLS);
    expect(script.servedTools("ListSilences,all", "false")).toEqual(ALL_TOOLS);
    for (const [group, tools] of Object.entries(catalog.groups)) {
      expect(script.servedTools(group, "false"), group).toEqual(tools);
    }
    for (const tool of ALL_TOOLS) expect(script.servedTools(tool, "true"), tool).toEqual([tool]);
  });

  it("refuses an unknown name with one line naming it and every valid group and tool", () => {
    for (const [value, name] of [
      ["core,ListEverything", "ListEverything"],
      ["Core", "Core"],
      ["ALL", "ALL"],
      ["executequery", "executequery"],
      ["ExecuteQuery;FindSeries", "ExecuteQuery;FindSeries"],
      ["ExecuteQuery FindSeries", "ExecuteQuery FindSeries"],
    ] as const) {
      const error = refusal(value);
      expect(error, value).toBeInstanceOf(Error);
      const message = error?.message ?? "";
      expect(message).toContain(`tools / TOOLS: ${JSON.stringify(name)} is neither a tool nor a group`);
      expect(message).not.toContain("\n");
      // osls prints the stack: it is the message alone.
      expect(error?.stack).toBe(message);
      for (const valid of [...Object.keys(catalog.groups), "all", ...ALL_TOOLS])
        expect(message).toContain(valid);
    }
  });

  it("refuses a value that names no tool (only commas), as the application does", () => {
    for (const value of [",", " , ,"]) {
      const error = refusal(value);
      expect(error?.message, value).toContain(`tools / TOOLS: ${JSON.stringify(value.trim())} names no tool`);
      expect(error?.stack).toBe(error?.message);
    }
  });

  it("serves what the application serves (src/config.ts, TOOLS and PYTHON_COMPAT), and refuses what it refuses", () => {
    const values = [
      "",
      " ",
      "all",
      "core",
      "discovery",
      "alerting",
      "core,discovery",
      " alerting , GetServerInfo ,, ",
      "ExecuteQuery,FindSeries",
      "ListSilences,all",
      ",",
      "Core",
      "core,ListEverything",
      ...ALL_TOOLS,
    ];
    for (const tools of values) {
      for (const pythonCompat of ["false", "true"]) {
        const label = `TOOLS=${JSON.stringify(tools)} PYTHON_COMPAT=${pythonCompat}`;
        let app: readonly string[] | "refused";
        try {
          app = loadConfig({ AWS_REGION: "us-east-1", TOOLS: tools, PYTHON_COMPAT: pythonCompat }).tools;
        } catch (error) {
          expect(error, label).toBeInstanceOf(ConfigError);
          app = "refused";
        }
        const served = refusal(tools, pythonCompat) ? "refused" : script.servedTools(tools, pythonCompat);
        expect(served, label).toEqual(app === "refused" ? app : [...app]);
      }
    }
  });
});

describe("role statements: the aps actions and statements", () => {
  it("all tools call the nine actions; the core tools exactly the original four", () => {
    expect(script.apsActions(ALL_TOOLS)).toEqual(ALL_ACTIONS);
    expect(script.apsActions(script.servedTools("", "false"))).toEqual(ALL_ACTIONS);
    expect(script.apsActions(script.servedTools("", "true"))).toEqual(CORE_ACTIONS);
    expect(script.apsActions([])).toEqual([]);
  });

  it("each tool alone: its catalog actions, in the statements they belong to", () => {
    for (const tool of ALL_TOOLS) {
      const actions = script.apsActions([tool]);
      expect(actions, tool).toEqual(catalogActions([tool]));
      expectStatements(actions);
    }
  });

  it("each group and some mixes: the union of their tools' actions, no empty statement", () => {
    const cases: [string, string[]][] = [
      ["core", CORE_ACTIONS],
      ["discovery", ["aps:DescribeWorkspace", "aps:GetLabels", "aps:GetMetricMetadata", "aps:GetSeries"]],
      [
        "alerting",
        [
          "aps:DescribeWorkspace",
          "aps:ListAlertManagerAlerts",
          "aps:ListAlertManagerSilences",
          "aps:ListAlerts",
          "aps:ListRules",
          "aps:QueryMetrics",
        ],
      ],
      ["all", ALL_ACTIONS],
      ["ExecuteQuery,FindSeries", ["aps:DescribeWorkspace", "aps:GetSeries", "aps:QueryMetrics"]],
      ["GetServerInfo", ["aps:DescribeWorkspace"]],
      ["GetAvailableWorkspaces", ["aps:DescribeWorkspace", "aps:ListWorkspaces"]],
      [
        "ListSilences,GetAvailableWorkspaces",
        ["aps:DescribeWorkspace", "aps:ListAlertManagerSilences", "aps:ListWorkspaces"],
      ],
    ];
    for (const [value, want] of cases) {
      const tools = script.servedTools(value, "false");
      expect(script.apsActions(tools), value).toEqual(want);
      expect(want, value).toEqual(catalogActions(tools));
      expectStatements(want);
    }
  });

  it("the statements: ListWorkspaces alone on *, DescribeWorkspace alone, the data actions sorted in one", () => {
    expect(script.apsStatements(ALL_ACTIONS, RESOURCES)).toEqual([
      {
        Effect: "Allow",
        Action: ["aps:ListWorkspaces"],
        Resource: "*",
        Condition: { StringEquals: { "aws:RequestedRegion": ["<regions>"] } },
      },
      { Effect: "Allow", Action: ["aps:DescribeWorkspace"], Resource: ["<every workspace>"] },
      {
        Effect: "Allow",
        Action: [
          "aps:GetLabels",
          "aps:GetMetricMetadata",
          "aps:GetSeries",
          "aps:ListAlertManagerAlerts",
          "aps:ListAlertManagerSilences",
          "aps:ListAlerts",
          "aps:ListRules",
          "aps:QueryMetrics",
        ],
        Resource: ["<readable workspaces>"],
      },
    ]);
    expect(script.apsStatements(["aps:DescribeWorkspace"], RESOURCES)).toEqual([
      { Effect: "Allow", Action: ["aps:DescribeWorkspace"], Resource: ["<every workspace>"] },
    ]);
    expect(script.apsStatements([], RESOURCES)).toEqual([]);
  });
});

describe("role statements: what serverless.yml gets", () => {
  /** osls' resolveVariable over these parameters (and the stack's region). */
  function resolver(params: Record<string, string>) {
    return {
      resolveVariable: async (address: string) => {
        if (address === "self:provider.region") return "us-east-1";
        const name = address.replace(/^param:/, "");
        return params[name] ?? "";
      },
    };
  }
  const everyWorkspace = (region: unknown = { Ref: "AWS::Region" }) => ({
    "Fn::Join": [
      ":",
      ["arn", { Ref: "AWS::Partition" }, "aps", region, { Ref: "AWS::AccountId" }, "workspace/*"],
    ],
  });

  it("the served tools' aps statements on the workspace resources, then the sessions table's, unchanged", async () => {
    const statements = await script.statements(
      resolver({ tools: "alerting,GetAvailableWorkspaces", pythonCompat: "true", regions: "eu-west-1" }),
    );
    expect(statements).toEqual([
      {
        Effect: "Allow",
        Action: ["aps:ListWorkspaces"],
        Resource: "*",
        Condition: { StringEquals: { "aws:RequestedRegion": [{ Ref: "AWS::Region" }, "eu-west-1"] } },
      },
      {
        Effect: "Allow",
        Action: ["aps:DescribeWorkspace"],
        Resource: [everyWorkspace(), everyWorkspace("eu-west-1")],
      },
      {
        Effect: "Allow",
        Action: [
          "aps:ListAlertManagerAlerts",
          "aps:ListAlertManagerSilences",
          "aps:ListAlerts",
          "aps:ListRules",
          "aps:QueryMetrics",
        ],
        Resource: [everyWorkspace(), everyWorkspace("eu-west-1")],
      },
      {
        Effect: "Allow",
        Action: ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"],
        Resource: [{ "Fn::GetAtt": ["SessionsTable", "Arn"] }],
      },
    ]);
  });

  it("pythonCompat alone: the core tools' statements; an unknown name or a bad region is refused", async () => {
    const core = await script.statements(resolver({ pythonCompat: "true" }));
    expect(
      core.flatMap((statement) => statement.Action).filter((action) => action.startsWith("aps:")),
    ).toEqual(["aps:ListWorkspaces", "aps:DescribeWorkspace", "aps:GetLabels", "aps:QueryMetrics"]);
    expect(core.at(-1)).toEqual(script.SESSIONS_STATEMENT);
    await expect(script.statements(resolver({ tools: "core,ListEverything" }))).rejects.toThrow(
      /^tools \/ TOOLS: "ListEverything" is neither a tool nor a group/,
    );
    // The regions are checked whatever the tools: GetServerInfo grants no ListWorkspaces.
    await expect(script.statements(resolver({ tools: "GetServerInfo", regions: "mars-1" }))).rejects.toThrow(
      'regions: "mars-1" is not an AWS region',
    );
  });
});
