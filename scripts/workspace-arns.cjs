// The IAM resources of the role's aps actions (scripts/role-statements.cjs builds provider.iam.role.statements):
// the workspaces the function may read, the same ones the application enforces (src/prometheus/access.ts),
// and the regions it may call, the same list the function gets as ALLOWED_REGIONS.
//
// - prometheusUrl names an AMP workspace (…/workspaces/ws-…/) and/or allowedWorkspaces lists some:
//   exactly those workspaces' ARNs, arn:<partition>:aps:<region>:<account>:workspace/<id>. The region
//   is the one the entry carries: the URL's host (aps-workspaces[-fips].<region>.amazonaws.com[.cn]) for
//   prometheusUrl and allowedWorkspaces URLs, the ARN's for allowedWorkspaces ARNs; the stack's for a
//   bare id. Partition and account are the stack's: the AMP API reaches the caller's own account only.
// - neither: workspace/* — any workspace of the account in the deployed regions (docs/configuration.md).
// - The deployed regions: the stack's, the `regions` parameter's, then the regions of the workspaces
//   above, so a workspace named in another region is reachable without listing its region again. They
//   are the ListWorkspaces aws:RequestedRegion condition, DescribeWorkspace's workspace/* ARNs and the
//   function's ALLOWED_REGIONS, which the application enforces.
//
// A value that is not a list of workspace ids, URLs and ARNs, or of regions, fails `serverless package` /
// `deploy` with one line.
//
// What a workspace id, URL, ARN and region look like is the application's own rules, not a copy: those
// of src/prometheus/access.ts and regions.ts, compiled (dist/config/scripts.cjs, app-config.cjs).
const { workspaceUrls } = require("./backends.cjs");
const { local } = require("./command-settings.cjs");

/** The application's workspace and region rules (parseWorkspaceEntry, REGION_PATTERN…), compiled. */
function rules() {
  return require("./app-config.cjs").appConfig();
}

function text(value) {
  return value === undefined || value === null ? "" : String(value).trim();
}

/** An error osls prints as this one line (it prints the stack). */
function oneLine(message) {
  const error = new Error(message);
  error.stack = error.message;
  return error;
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

/** The region of an AMP URL, from its host (aps-workspaces.<region>.amazonaws.com); undefined for any other. */
function urlRegion(url) {
  return rules().ampRegionOfUrl(url);
}

/**
 * One allowedWorkspaces entry as { id, region }: a workspace id (region undefined: the stack's), a
 * workspace URL (its host's region) or a workspace ARN (its region); undefined when it is none of these.
 * The application's own reading (src/prometheus/access.ts, parseWorkspaceEntry).
 */
function workspaceEntry(entry) {
  const workspace = rules().parseWorkspaceEntry(entry);
  return workspace === undefined ? undefined : { id: workspace.id, region: workspace.region };
}

/** The allowedWorkspaces entries, parsed, in order; a malformed one throws (one line) unless `lenient`. */
function workspaceEntries(allowedWorkspaces, lenient = false) {
  const workspaces = [];
  for (const entry of text(allowedWorkspaces).split(",")) {
    const trimmed = entry.trim();
    if (trimmed === "") continue;
    const workspace = workspaceEntry(trimmed);
    if (workspace !== undefined) workspaces.push(workspace);
    else if (!lenient) {
      throw oneLine(
        `allowedWorkspaces / ALLOWED_WORKSPACES: ${JSON.stringify(trimmed)} is not an AMP workspace id, URL or ARN (expected a comma-separated list such as ws-12345678-abcd-1234-abcd-123456789012, https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-…/ or arn:aws:aps:eu-west-1:123456789012:workspace/ws-…)`,
      );
    }
  }
  return workspaces;
}

/**
 * [{ id, region }] of the workspaces the deployment is limited to, the pinned one first, without repeats
 * (region undefined: the stack's); [] when it is not limited.
 */
function limitedWorkspaces(prometheusUrl, allowedWorkspaces) {
  const workspaces = [];
  const pinned = rules().workspaceIdFromUrl(text(prometheusUrl));
  if (pinned !== undefined) workspaces.push({ id: pinned, region: urlRegion(text(prometheusUrl)) });
  for (const workspace of workspaceEntries(allowedWorkspaces)) {
    const known = workspaces.some(({ id, region }) => id === workspace.id && region === workspace.region);
    if (!known) workspaces.push(workspace);
  }
  return workspaces;
}

/**
 * The regions the configured workspaces live in, in order without repeats: prometheusUrl's (an AMP
 * URL's host), then those of allowedWorkspaces URLs and ARNs; bare ids add none. `lenient` skips a
 * malformed entry (the application's own check reports it).
 */
function workspaceRegions(prometheusUrl, allowedWorkspaces, lenient = false) {
  const regions = [urlRegion(text(prometheusUrl))];
  for (const { region } of workspaceEntries(allowedWorkspaces, lenient)) regions.push(region);
  return [...new Set(regions.filter((region) => region !== undefined))];
}

/**
 * The regions the deployment's tools may call: the stack's own, then those `listed` (the `regions`
 * parameter, comma-separated), then the workspace regions `workspaces` adds; no repeats. Throws one
 * line on a listed entry that is not a region.
 */
function regionList(stackRegion, listed, workspaces = []) {
  const regions = [stackRegion];
  for (const entry of text(listed).split(",")) {
    const region = entry.trim();
    if (region === "") continue;
    if (!rules().REGION_PATTERN.test(region)) {
      throw oneLine(
        `regions: ${JSON.stringify(region)} is not an AWS region (expected a comma-separated list such as eu-west-1,us-west-2)`,
      );
    }
    if (!regions.includes(region)) regions.push(region);
  }
  for (const region of workspaces) if (!regions.includes(region)) regions.push(region);
  return regions;
}

/**
 * The deployed regions (regionList of the stack's region, `regions` and the configured workspaces'
 * regions): the role is granted the aps actions in these regions only, and the function gets them as
 * ALLOWED_REGIONS, which it enforces.
 */
async function deployedRegions(resolveVariable, lenient = false) {
  const stackRegion = text(await resolveVariable("self:provider.region"));
  const listed = text(await resolveVariable("param:regions"));
  const prometheusUrl = text(await resolveVariable("param:prometheusUrl"));
  const allowedWorkspaces = await configuredWorkspaces(resolveVariable);
  return regionList(stackRegion, listed, workspaceRegions(prometheusUrl, allowedWorkspaces, lenient));
}

/**
 * allowedWorkspaces and the AMP workspaces the backends name (scripts/backends.cjs), comma-separated:
 * the application adds the latter to its list the same way.
 */
async function configuredWorkspaces(resolveVariable) {
  const listed = text(await resolveVariable("param:allowedWorkspaces"));
  const named = workspaceUrls(await resolveVariable("param:backends"));
  return [listed, named].filter((part) => part !== "").join(",");
}

/** A region as the template names it: the stack's own as a reference (undefined), others as given. */
function regionRef(region, stackRegion) {
  return region === stackRegion ? undefined : region;
}

module.exports = {
  workspaceEntry,
  limitedWorkspaces,
  workspaceRegions,
  regionList,
  deployedRegions,
  /**
   * ALLOWED_REGIONS of the function: the deployed regions; for local runs, the shell's (unset: any; the
   * application adds the configured workspaces' regions to a list itself). A malformed allowedWorkspaces
   * entry is left to the application's check here (scripts/check-settings.cjs), which names it.
   */
  allowedRegions: async ({ resolveVariable }) =>
    local ? (process.env.ALLOWED_REGIONS ?? "") : (await deployedRegions(resolveVariable, true)).join(","),
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
    const allowedWorkspaces = await configuredWorkspaces(resolveVariable);
    const workspaces = limitedWorkspaces(prometheusUrl, allowedWorkspaces);
    const regions = await deployedRegions(resolveVariable);
    if (workspaces.length > 0) {
      // The stack's region as a reference, however the entry named it; each ARN once.
      const resources = new Map();
      for (const { id, region } of workspaces) {
        const resource = arn(
          region === undefined ? undefined : regionRef(region, regions[0]),
          `workspace/${id}`,
        );
        resources.set(JSON.stringify(resource), resource);
      }
      return [...resources.values()];
    }
    return regions.map((region) => arn(regionRef(region, regions[0]), "workspace/*"));
  },
};
