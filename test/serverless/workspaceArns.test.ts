import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/index.js";
import { ROOT } from "./sls.js";

/**
 * scripts/workspace-arns.cjs without packaging: which workspaces (and in which regions) the role's aps
 * data actions are granted on, and the regions the role and the function (ALLOWED_REGIONS) may call.
 */

interface Workspace {
  id: string;
  region: string | undefined;
}
type Resolve = { resolveVariable(address: string): Promise<unknown> };
interface WorkspaceArns {
  workspaceEntry(entry: string): Workspace | undefined;
  limitedWorkspaces(prometheusUrl: string, allowedWorkspaces: string): Workspace[];
  workspaceRegions(prometheusUrl: string, allowedWorkspaces: string, lenient?: boolean): string[];
  regionList(stackRegion: string, listed: string, workspaces?: string[]): string[];
  allowedRegions(options: Resolve): Promise<string>;
  requestedRegions(options: Resolve): Promise<unknown[]>;
  describeResources(options: Resolve): Promise<unknown[]>;
  dataResources(options: Resolve): Promise<unknown[]>;
}

const script = createRequire(import.meta.url)(join(ROOT, "scripts", "workspace-arns.cjs")) as WorkspaceArns;

const EU_URL = "https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-pinned/";
const ARN = "arn:aws:aps:ap-southeast-2:123456789012:workspace/ws-by-arn";
const URL_ENTRY = "https://aps-workspaces-fips.us-west-2.amazonaws.com/workspaces/ws-by-url";

/** The parameters as osls would resolve them for a us-east-1 stack. */
function params(values: Record<string, string>): Resolve {
  const all: Record<string, string> = {
    "self:provider.region": "us-east-1",
    "param:regions": "",
    "param:prometheusUrl": "",
    "param:allowedWorkspaces": "",
    ...values,
  };
  return { resolveVariable: async (address) => all[address] };
}

/** `arn:${AWS::Partition}:aps:<region>:${AWS::AccountId}:<resource>` as the template builds it. */
function apsArn(resource: string, region: unknown = { Ref: "AWS::Region" }): unknown {
  return {
    "Fn::Join": [":", ["arn", { Ref: "AWS::Partition" }, "aps", region, { Ref: "AWS::AccountId" }, resource]],
  };
}

/** The one-line error a call throws, or undefined. */
async function refusal(run: () => unknown): Promise<Error | undefined> {
  try {
    await run();
  } catch (error) {
    return error as Error;
  }
  return undefined;
}

describe("scripts/workspace-arns.cjs", () => {
  it("reads allowedWorkspaces entries as the application does: ids, workspace URLs, workspace ARNs", () => {
    const entries = [
      "ws-bare",
      ARN,
      URL_ENTRY,
      "https://aps-workspaces.cn-north-1.amazonaws.com.cn/workspaces/ws-cn/",
      "team-a",
      "https://prometheus.example.com/workspaces/ws-a/",
      "arn:aws:aps:eu-west-1:12345:workspace/ws-a",
      "arn:aws:aps:eu-west-1:123456789012:rulegroupsnamespace/ws-a/x",
    ];
    expect(entries.map((entry) => script.workspaceEntry(entry))).toEqual([
      { id: "ws-bare", region: undefined },
      { id: "ws-by-arn", region: "ap-southeast-2" },
      { id: "ws-by-url", region: "us-west-2" },
      { id: "ws-cn", region: "cn-north-1" },
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    // The application accepts exactly the well-formed ones (its own check runs before packaging).
    for (const [index, entry] of entries.entries()) {
      const accepted = (() => {
        try {
          loadConfig({ AWS_REGION: "us-east-1", ALLOWED_WORKSPACES: entry });
          return true;
        } catch {
          return false;
        }
      })();
      // cn-north-1 is well-formed but of another partition than us-east-1's: the app alone refuses it.
      expect(accepted, entry).toBe(index < 3);
    }
  });

  it("places each workspace in the region its entry carries: the pinned URL's host, an ARN's, a URL's; ids in the stack's", () => {
    expect(script.limitedWorkspaces(EU_URL, `ws-bare, ${ARN},${URL_ENTRY}, ws-bare`)).toEqual([
      { id: "ws-pinned", region: "eu-west-1" },
      { id: "ws-bare", region: undefined },
      { id: "ws-by-arn", region: "ap-southeast-2" },
      { id: "ws-by-url", region: "us-west-2" },
    ]);
    expect(script.workspaceRegions(EU_URL, `ws-bare,${ARN},${URL_ENTRY}`)).toEqual([
      "eu-west-1",
      "ap-southeast-2",
      "us-west-2",
    ]);
    expect(script.workspaceRegions("http://prometheus.internal:9090/", "ws-bare")).toEqual([]);
    expect(script.limitedWorkspaces("http://prometheus.internal:9090/", "")).toEqual([]);
  });

  it("the deployed regions: the stack's, the regions parameter's, then the workspaces' it lacks", () => {
    expect(
      script.regionList("us-east-1", "eu-west-1, us-west-2,eu-west-1", ["eu-west-1", "ap-south-1"]),
    ).toEqual(["us-east-1", "eu-west-1", "us-west-2", "ap-south-1"]);
    expect(script.regionList("us-east-1", "", ["us-east-1"])).toEqual(["us-east-1"]);
  });

  it("a us-east-1 stack pinned to an eu-west-1 workspace: its ARN in eu-west-1, eu-west-1 in the condition, DescribeWorkspace and ALLOWED_REGIONS", async () => {
    const pinned = params({ "param:prometheusUrl": EU_URL });
    expect(await script.dataResources(pinned)).toEqual([apsArn("workspace/ws-pinned", "eu-west-1")]);
    expect(await script.requestedRegions(pinned)).toEqual([{ Ref: "AWS::Region" }, "eu-west-1"]);
    expect(await script.describeResources(pinned)).toEqual([
      apsArn("workspace/*"),
      apsArn("workspace/*", "eu-west-1"),
    ]);
    expect(await script.allowedRegions(pinned)).toBe("us-east-1,eu-west-1");
  });

  it("allowedWorkspaces URLs and ARNs: their ARNs in their regions, those regions deployed; the stack's region as a reference", async () => {
    const listed = params({
      "param:regions": "us-west-2",
      "param:allowedWorkspaces": `ws-bare,${ARN},${URL_ENTRY},arn:aws:aps:us-east-1:123456789012:workspace/ws-bare`,
    });
    expect(await script.dataResources(listed)).toEqual([
      apsArn("workspace/ws-bare"),
      apsArn("workspace/ws-by-arn", "ap-southeast-2"),
      apsArn("workspace/ws-by-url", "us-west-2"),
    ]);
    expect(await script.requestedRegions(listed)).toEqual([
      { Ref: "AWS::Region" },
      "us-west-2",
      "ap-southeast-2",
    ]);
    expect(await script.allowedRegions(listed)).toBe("us-east-1,us-west-2,ap-southeast-2");
  });

  it("a malformed entry stops the IAM resources with one line; ALLOWED_REGIONS leaves it to the application's check", async () => {
    const bad = params({
      "param:allowedWorkspaces": `ws-a,${EU_URL.replace("aps-workspaces", "prometheus")}`,
    });
    for (const build of [script.dataResources, script.requestedRegions, script.describeResources]) {
      const error = await refusal(() => build(bad));
      expect(error?.message).toMatch(
        /^allowedWorkspaces \/ ALLOWED_WORKSPACES: "https:\/\/prometheus\.eu-west-1\.amazonaws\.com\/workspaces\/ws-pinned\/" is not an AMP workspace id, URL or ARN \(expected /,
      );
      expect(error?.stack).toBe(error?.message);
    }
    expect(await script.allowedRegions(bad)).toBe("us-east-1");
    const badRegion = await refusal(() => script.requestedRegions(params({ "param:regions": "mars-1" })));
    expect(badRegion?.message).toMatch(/^regions: "mars-1" is not an AWS region/);
  });
});
