import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { ToolError } from "../../src/errors.js";
import {
  ampRegionOfUrl,
  configuredRegions,
  parseWorkspaceEntry,
  WorkspaceAccess,
} from "../../src/prometheus/access.js";
import { PARTITIONS, Regions } from "../../src/prometheus/regions.js";
import { redactCredentials, splitCredentials, withoutCredentials } from "../../src/prometheus/urls.js";

interface SdkPartitions {
  partitions: { id: string; regionRegex: string; regions: Record<string, unknown> }[];
}

/** The installed AWS SDK's own partition data (what the AMP client resolves endpoints with). */
async function sdkPartitions(): Promise<SdkPartitions> {
  const require = createRequire(import.meta.url);
  const core = dirname(require.resolve("@aws-sdk/core/package.json"));
  const source = await readFile(
    join(core, "dist-es/submodules/client/util-endpoints/lib/aws/partitions.js"),
    "utf8",
  );
  const json = source.slice(source.indexOf("{"), source.lastIndexOf("}") + 1);
  return JSON.parse(json) as SdkPartitions;
}

describe("regions a function may use", () => {
  it("match the AWS SDK's partition data (update src/prometheus/regions.ts when this fails)", async () => {
    const sdk = await sdkPartitions();
    expect(
      PARTITIONS.map(({ id, pattern, regions }) => ({ id, pattern: pattern.source, regions: [...regions] })),
    ).toEqual(
      sdk.partitions.map((partition) => ({
        id: partition.id,
        pattern: partition.regionRegex.replaceAll("\\-", "-"),
        regions: Object.keys(partition.regions)
          .filter((region) => !region.endsWith("-global"))
          .sort(),
      })),
    );
  });

  it("are those of the function's own partition", () => {
    const commercial = new Regions("eu-west-1");
    expect(commercial.partition).toBe("aws");
    expect(commercial.check("ap-southeast-2")).toBe("ap-southeast-2");
    expect(commercial.has("cn-north-1")).toBe(false);
    expect(commercial.has("us-gov-west-1")).toBe(false);

    const china = new Regions("cn-northwest-1");
    expect(china.partition).toBe("aws-cn");
    expect(china.has("cn-north-1")).toBe(true);
    expect(china.has("us-east-1")).toBe(false);

    const govCloud = new Regions("us-gov-west-1");
    expect(govCloud.partition).toBe("aws-us-gov");
    expect(govCloud.has("us-gov-east-1")).toBe(true);
    expect(govCloud.has("us-east-1")).toBe(false);
  });

  it("include the function's region even when it is newer than the list", () => {
    const newer = new Regions("eu-east-9");
    expect(newer.partition).toBe("aws");
    expect(newer.check("eu-east-9")).toBe("eu-east-9");
    expect(newer.has("eu-west-1")).toBe(true);
  });

  it("refuse a made-up region with an error naming valid ones", () => {
    const regions = new Regions("us-west-2");
    let error: unknown;
    try {
      regions.check("us-fake-9");
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ToolError);
    expect((error as Error).message).toBe(
      'Unknown AWS region "us-fake-9": this function runs in the aws partition, whose regions include us-west-2, us-east-1, us-east-2, us-west-1, eu-west-1, eu-central-1. Pass one of them, or omit region to use us-west-2.',
    );
  });
});

describe("the region of a configured workspace", () => {
  it("is an AMP URL's host's: aps-workspaces[-fips].<region>.amazonaws.com[.cn]", () => {
    expect(ampRegionOfUrl("https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-a/")).toBe(
      "eu-west-1",
    );
    expect(ampRegionOfUrl("https://aps-workspaces-fips.us-gov-west-1.amazonaws.com/workspaces/ws-a")).toBe(
      "us-gov-west-1",
    );
    expect(ampRegionOfUrl("https://aps-workspaces.cn-north-1.amazonaws.com.cn/workspaces/ws-a/api/v1")).toBe(
      "cn-north-1",
    );
    expect(ampRegionOfUrl("http://APS-WORKSPACES.EU-WEST-1.AMAZONAWS.COM:8080/workspaces/ws-a/")).toBe(
      "eu-west-1",
    );
    // Not AMP's host: no region (a plain Prometheus, a local stand-in, a look-alike).
    for (const url of [
      "http://prometheus.internal:9090/workspaces/ws-a/",
      "http://127.0.0.1:9090/workspaces/ws-a/",
      "https://aps-workspaces.eu-west-1.amazonaws.com.evil.example/workspaces/ws-a/",
      "https://aps.eu-west-1.amazonaws.com/workspaces/ws-a/",
      "not a url",
      undefined,
    ]) {
      expect(ampRegionOfUrl(url)).toBeUndefined();
    }
  });

  it("ALLOWED_WORKSPACES entries: ids (no region), workspace URLs and ARNs (their region)", () => {
    expect(parseWorkspaceEntry("ws-a1_B-2")).toEqual({ id: "ws-a1_B-2", region: undefined });
    expect(parseWorkspaceEntry("https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-a/")).toEqual({
      id: "ws-a",
      region: "eu-west-1",
    });
    expect(parseWorkspaceEntry("https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-a")).toEqual({
      id: "ws-a",
      region: "eu-west-1",
    });
    expect(parseWorkspaceEntry("arn:aws:aps:ap-southeast-2:123456789012:workspace/ws-b")).toEqual({
      id: "ws-b",
      region: "ap-southeast-2",
      partition: "aws",
    });
    expect(parseWorkspaceEntry("arn:aws-cn:aps:cn-north-1:123456789012:workspace/ws-c")).toMatchObject({
      region: "cn-north-1",
      partition: "aws-cn",
    });
    for (const entry of [
      "team-a",
      "ws-",
      "ws-a b",
      "https://prometheus.example.com/workspaces/ws-a/",
      "https://aps-workspaces.eu-west-1.amazonaws.com/",
      "https://aps-workspaces.eu-west-1.amazonaws.com/api/v1/workspaces/ws-a",
      "ftp://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-a/",
      "arn:aws:aps:eu-west-1:123456789012:workspace/",
      "arn:aws:aps:eu-west-1:12345:workspace/ws-a",
      "arn:aws:s3:eu-west-1:123456789012:workspace/ws-a",
      "arn:aws:aps:eu-west-1:123456789012:rulegroupsnamespace/ws-a/x",
    ]) {
      expect(parseWorkspaceEntry(entry), entry).toBeUndefined();
    }
    expect(
      configuredRegions("https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-p/", [
        "ws-a",
        "arn:aws:aps:eu-west-1:123456789012:workspace/ws-b",
        "https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-c/",
      ]),
    ).toEqual(["us-west-2", "eu-west-1"]);
    expect(configuredRegions("http://localhost:9090", ["ws-a"])).toEqual([]);
  });

  it("places a workspace named by URL or ARN in its region, one named by id in any (the stack's first)", () => {
    const access = new WorkspaceAccess({
      prometheusUrl: "https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-pinned/",
      allowedWorkspaces: ["ws-bare", "arn:aws:aps:us-west-2:123456789012:workspace/ws-arn"],
    });
    expect(access.configuredRegion).toBe("eu-west-1");
    expect(access.allowed).toEqual(["ws-pinned", "ws-bare", "ws-arn"]);
    expect(access.homeRegion("ws-pinned")).toBe("eu-west-1");
    expect(access.homeRegion("ws-arn")).toBe("us-west-2");
    expect(access.homeRegion("ws-bare")).toBeUndefined();
    expect(() => access.checkRegion("ws-arn", "us-west-2")).not.toThrow();
    expect(() => access.checkRegion("ws-bare", "ap-south-1")).not.toThrow();
    expect(() => access.checkRegion("ws-pinned", "us-east-1")).toThrow(
      "Workspace ws-pinned is in eu-west-1 (this deployment's configuration names it by URL or ARN), not in us-east-1. Omit region to use eu-west-1.",
    );
  });
});

describe("URLs without credentials", () => {
  it("strips user:password from a URL, and from any URL in a text", () => {
    expect(withoutCredentials("https://admin:s3cret@prom.example.com:9090/x/")).toBe(
      "https://prom.example.com:9090/x/",
    );
    expect(withoutCredentials("http://127.0.0.1:9090/")).toBe("http://127.0.0.1:9090/");
    expect(
      redactCredentials("fetch failed: http://a:b@h/x and https://user@other/y, not mail@example.com"),
    ).toBe("fetch failed: http://h/x and https://other/y, not mail@example.com");
  });

  it("turns userinfo into a Basic authorization", () => {
    expect(splitCredentials("http://admin:p%40ss@prom.example.com/")).toEqual({
      url: "http://prom.example.com/",
      basicAuth: `Basic ${Buffer.from("admin:p@ss").toString("base64")}`,
    });
    expect(splitCredentials("http://prom.example.com/")).toEqual({
      url: "http://prom.example.com/",
      basicAuth: undefined,
    });
  });
});
