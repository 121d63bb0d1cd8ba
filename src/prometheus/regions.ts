import { ToolError } from "../errors.js";

/**
 * The syntax of an AWS region name (us-east-1, ap-southeast-2, us-gov-west-1), unanchored: the region
 * part of larger patterns (AMP hosts, ARNs), which take its `source`. It has no capturing group.
 */
export const REGION_SYNTAX = /[a-z]{2}(?:-[a-z]+)+-\d{1,2}/;

/** An AWS region name, the whole string: us-east-1, ap-southeast-2, us-gov-west-1. */
export const REGION_PATTERN = new RegExp(`^${REGION_SYNTAX.source}$`);

interface Partition {
  id: string;
  /** What a region of this partition looks like (the SDK's `regionRegex`): picks the function's partition. */
  pattern: RegExp;
  regions: readonly string[];
}

/**
 * The regions of each AWS partition, from the AWS SDK's endpoint data (`partitions.js` in
 * `@aws-sdk/core`, util-endpoints; the `*-global` pseudo-regions left out). A unit test compares this
 * list with the installed SDK's, so an SDK update that adds a region says so.
 */
export const PARTITIONS: readonly Partition[] = [
  {
    id: "aws",
    pattern: /^(us|eu|ap|sa|ca|me|af|il|mx)-\w+-\d+$/,
    regions: [
      "af-south-1",
      "ap-east-1",
      "ap-east-2",
      "ap-northeast-1",
      "ap-northeast-2",
      "ap-northeast-3",
      "ap-south-1",
      "ap-south-2",
      "ap-southeast-1",
      "ap-southeast-2",
      "ap-southeast-3",
      "ap-southeast-4",
      "ap-southeast-5",
      "ap-southeast-6",
      "ap-southeast-7",
      "ca-central-1",
      "ca-west-1",
      "eu-central-1",
      "eu-central-2",
      "eu-north-1",
      "eu-south-1",
      "eu-south-2",
      "eu-west-1",
      "eu-west-2",
      "eu-west-3",
      "il-central-1",
      "me-central-1",
      "me-south-1",
      "me-west-1",
      "mx-central-1",
      "sa-east-1",
      "sa-west-1",
      "us-east-1",
      "us-east-2",
      "us-west-1",
      "us-west-2",
    ],
  },
  { id: "aws-cn", pattern: /^cn-\w+-\d+$/, regions: ["cn-north-1", "cn-northwest-1"] },
  { id: "aws-eusc", pattern: /^eusc-(de)-\w+-\d+$/, regions: ["eusc-de-east-1"] },
  { id: "aws-iso", pattern: /^us-iso-\w+-\d+$/, regions: ["us-iso-east-1", "us-iso-west-1"] },
  { id: "aws-iso-b", pattern: /^us-isob-\w+-\d+$/, regions: ["us-isob-east-1", "us-isob-west-1"] },
  { id: "aws-iso-e", pattern: /^eu-isoe-\w+-\d+$/, regions: ["eu-isoe-west-1"] },
  { id: "aws-iso-f", pattern: /^us-isof-\w+-\d+$/, regions: ["us-isof-east-1", "us-isof-south-1"] },
  { id: "aws-us-gov", pattern: /^us-gov-\w+-\d+$/, regions: ["us-gov-east-1", "us-gov-west-1"] },
];

/** How many valid regions an error names. */
const SUGGESTIONS = 6;
/** Named in an error when the asked region resembles none of its partition's. */
const WELL_KNOWN = [
  "us-east-1",
  "us-west-2",
  "eu-west-1",
  "eu-central-1",
  "ap-southeast-2",
  "ap-northeast-1",
];

/**
 * The regions a function may use: those of the AWS partition it runs in (chosen by its own
 * AWS_REGION), plus that region itself (one newer than this list still works). Any other region is
 * refused before a client, signer or cache entry is made for it.
 */
export class Regions {
  readonly partition: string;
  private readonly known: ReadonlySet<string>;
  private readonly ordered: readonly string[];

  constructor(private readonly functionRegion: string) {
    const partition =
      PARTITIONS.find((candidate) => candidate.regions.includes(functionRegion)) ??
      PARTITIONS.find((candidate) => candidate.pattern.test(functionRegion)) ??
      (PARTITIONS[0] as Partition);
    this.partition = partition.id;
    this.ordered = partition.regions.includes(functionRegion)
      ? partition.regions
      : [...partition.regions, functionRegion];
    this.known = new Set(this.ordered);
  }

  has(region: string): boolean {
    return this.known.has(region);
  }

  /** `region` when this function may use it, else a ToolError naming a few it may. */
  check(region: string): string {
    if (this.known.has(region)) return region;
    throw new ToolError(
      `Unknown AWS region "${region}": this function runs in the ${this.partition} partition, whose regions include ${this.suggestions(region).join(", ")}. Pass one of them, or omit region to use ${this.functionRegion}.`,
      "invalid_arguments",
    );
  }

  /** The function's region, then those sharing the asked one's first part (`eu-…`), then well-known ones. */
  private suggestions(region: string): string[] {
    const prefix = `${region.split("-")[0]}-`;
    const alike = this.ordered.filter((known) => known.startsWith(prefix));
    const wellKnown = WELL_KNOWN.filter((known) => this.known.has(known));
    const picks = new Set([this.functionRegion, ...alike, ...wellKnown, ...this.ordered]);
    return [...picks].slice(0, SUGGESTIONS);
  }
}
