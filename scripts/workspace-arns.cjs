// The IAM resources of the role's aps actions (scripts/role-statements.cjs builds provider.iam.role.statements):
// the workspaces the function may read, the same ones the application enforces (src/prometheus/access.ts).
//
// - prometheusUrl names an AMP workspace (…/workspaces/ws-…/) and/or allowedWorkspaces lists some:
//   exactly those workspaces' ARNs, arn:<partition>:aps:<region>:<account>:workspace/<id>. The region
//   is the one in the URL's host (aps-workspaces.<region>.amazonaws.com) for the pinned workspace, else
//   the stack's; partition and account are the stack's.
// - neither: workspace/* — any workspace of the account in the stack's region (README, Configuration).
//
// A value that is not a list of workspace ids fails `serverless package` / `deploy` with one line.
const { local } = require("./command-settings.cjs");

const WORKSPACE_ID = /^ws-[A-Za-z0-9_-]{1,97}$/;
const URL_WORKSPACE = /\/workspaces\/(ws-[A-Za-z0-9_-]+)/;
const AMP_HOST = /^aps-workspaces(?:-fips)?\.([a-z]{2}(?:-[a-z]+)+-\d{1,2})\.amazonaws\.com(?:\.cn)?$/;

function text(value) {
  return value === undefined || value === null ? "" : String(value).trim();
}

/** The ARN as CloudFormation builds it; `region` undefined = the stack's region. */
function arn(region, resource) {
  return {
    "Fn::Join": [
      ":",
      [
        "arn",
        { Ref: "AWS::Partition" },
        "aps",
        region ?? { Ref: "AWS::Region" },
        { Ref: "AWS::AccountId" },
        resource,
      ],
    ],
  };
}

/** [{ id, region }] of the workspaces the deployment is limited to; [] when it is not limited. */
function limitedWorkspaces(prometheusUrl, allowedWorkspaces) {
  const workspaces = [];
  const pinned = URL_WORKSPACE.exec(prometheusUrl)?.[1];
  if (pinned !== undefined) {
    let host = "";
    try {
      host = new URL(prometheusUrl).hostname;
    } catch {}
    workspaces.push({ id: pinned, region: AMP_HOST.exec(host)?.[1] });
  }
  for (const id of allowedWorkspaces.split(",").map((entry) => entry.trim())) {
    if (id === "") continue;
    if (!WORKSPACE_ID.test(id)) {
      const error = new Error(
        `allowedWorkspaces / ALLOWED_WORKSPACES: ${JSON.stringify(id)} is not an AMP workspace id (expected a comma-separated list such as ws-12345678-abcd-1234-abcd-123456789012)`,
      );
      error.stack = error.message; // osls prints the stack: one line is what to fix
      throw error;
    }
    if (!workspaces.some((workspace) => workspace.id === id)) workspaces.push({ id, region: undefined });
  }
  return workspaces;
}

const REGION = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;

/**
 * The regions the deployment's tools may call: the stack's own, then those the `regions` parameter
 * lists (comma-separated). The role is granted the aps actions in these regions only, and the function
 * gets them as ALLOWED_REGIONS, which it enforces.
 */
async function deployedRegions(resolveVariable) {
  const stackRegion = text(await resolveVariable("self:provider.region"));
  const listed = text(await resolveVariable("param:regions"));
  const regions = [stackRegion];
  for (const region of listed.split(",").map((entry) => entry.trim())) {
    if (region === "") continue;
    if (!REGION.test(region)) {
      const error = new Error(
        `regions: ${JSON.stringify(region)} is not an AWS region (expected a comma-separated list such as eu-west-1,us-west-2)`,
      );
      error.stack = error.message; // osls prints the stack: one line is what to fix
      throw error;
    }
    if (!regions.includes(region)) regions.push(region);
  }
  return regions;
}

/** A region as the template names it: the stack's own as a reference, others as given. */
function regionRef(region, stackRegion) {
  return region === stackRegion ? undefined : region;
}

module.exports = {
  limitedWorkspaces,
  deployedRegions,
  /** ALLOWED_REGIONS of the function: the deployed regions; for local runs, the shell's (unset: any). */
  allowedRegions: async ({ resolveVariable }) =>
    local ? (process.env.ALLOWED_REGIONS ?? "") : (await deployedRegions(resolveVariable)).join(","),
  /** The regions as the ListWorkspaces statement's aws:RequestedRegion condition lists them. */
  requestedRegions: async ({ resolveVariable }) => {
    const regions = await deployedRegions(resolveVariable);
    return regions.map((region) => regionRef(region, regions[0]) ?? { Ref: "AWS::Region" });
  },
  /** The Resource list of the DescribeWorkspace statement: every workspace of each deployed region. */
  describeResources: async ({ resolveVariable }) => {
    const regions = await deployedRegions(resolveVariable);
    return regions.map((region) => arn(regionRef(region, regions[0]), "workspace/*"));
  },
  /** The Resource list of the aps data-action statement. */
  dataResources: async ({ resolveVariable }) => {
    const prometheusUrl = text(await resolveVariable("param:prometheusUrl"));
    const allowedWorkspaces = text(await resolveVariable("param:allowedWorkspaces"));
    const workspaces = limitedWorkspaces(prometheusUrl, allowedWorkspaces);
    if (workspaces.length > 0) return workspaces.map(({ id, region }) => arn(region, `workspace/${id}`));
    const regions = await deployedRegions(resolveVariable);
    return regions.map((region) => arn(regionRef(region, regions[0]), "workspace/*"));
  },
};
