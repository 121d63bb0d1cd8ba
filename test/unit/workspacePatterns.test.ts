import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import {
  parseWorkspaceEntry,
  WORKSPACE_ID,
  WORKSPACE_ID_FORM,
  WORKSPACE_ID_MAX_LENGTH,
  workspaceIdFromUrl,
  workspaceKey,
} from "../../src/prometheus/access.js";
import { REGION_PATTERN, REGION_SYNTAX } from "../../src/prometheus/regions.js";
import { workspaceId } from "../../tools/params.js";

/** The rules as each file wrote them before they had one home: what must still be accepted. */
const BEFORE = {
  workspaceId: /^ws-[A-Za-z0-9_-]{1,97}$/,
  toolWorkspaceId: /^ws-[A-Za-z0-9_-]+$/,
  region: /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/,
};

const idLike = fc.string({
  unit: fc.constantFrom("w", "s", "-", "_", "a", "Z", "9", "!", " ", "é"),
  maxLength: 110,
});
const longIdLike = fc
  .tuple(fc.constantFrom("ws-", "ws", "w-"), idLike, idLike)
  .map(([head, a, b]) => `${head}${a}${b}`);
const regionLike = fc.string({
  unit: fc.constantFrom("a", "z", "u", "s", "-", "1", "0", "Q", "."),
  maxLength: 20,
});

describe("the workspace id and region rules (one definition each)", () => {
  it("a workspace id is ws- and 1 to 97 letters, digits, - or _: 100 characters at most", () => {
    expect(WORKSPACE_ID_MAX_LENGTH).toBe(100);
    expect(WORKSPACE_ID.test(`ws-${"a".repeat(97)}`)).toBe(true);
    expect(WORKSPACE_ID.test(`ws-${"a".repeat(98)}`)).toBe(false);
    expect(WORKSPACE_ID.test("ws-")).toBe(false);
    expect(WORKSPACE_ID_FORM.test(`ws-${"a".repeat(98)}`)).toBe(true);
  });

  test.prop([fc.oneof(idLike, longIdLike)])(
    "WORKSPACE_ID accepts what it did; the tools' form within the length bound accepts the same",
    (text) => {
      expect(WORKSPACE_ID.test(text)).toBe(BEFORE.workspaceId.test(text));
      expect(WORKSPACE_ID_FORM.test(text)).toBe(BEFORE.toolWorkspaceId.test(text));
      expect(WORKSPACE_ID.test(text)).toBe(
        text.length <= WORKSPACE_ID_MAX_LENGTH && WORKSPACE_ID_FORM.test(text),
      );
    },
  );

  test.prop([fc.oneof(idLike, longIdLike)])(
    "the tools' workspace_id parameter accepts and refuses as before, with the same messages",
    (text) => {
      const result = workspaceId.safeParse(text);
      const before = [
        ...(text.length > 100 ? ["workspace_id is too long"] : []),
        ...(BEFORE.toolWorkspaceId.test(text) ? [] : ["regex"]),
      ];
      expect(result.success).toBe(before.length === 0);
      if (!result.success) {
        const messages = result.error.issues.map((issue) =>
          issue.message.startsWith("workspace_id must be") ? "regex" : issue.message,
        );
        expect(messages).toEqual(before);
      }
    },
  );

  test.prop([regionLike])("REGION_PATTERN accepts exactly what it did", (text) => {
    expect(REGION_PATTERN.test(text)).toBe(BEFORE.region.test(text));
    expect(new RegExp(`^${REGION_SYNTAX.source}$`).test(text)).toBe(BEFORE.region.test(text));
  });

  it("the URL and ARN readings take their parts from the same rules", () => {
    const longId = `ws-${"a".repeat(120)}`;
    // A URL names its id however long (the pinned workspace, as before); an entry's id is bounded.
    expect(workspaceIdFromUrl(`https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/${longId}/`)).toBe(
      longId,
    );
    expect(parseWorkspaceEntry(`https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/${longId}/`)).toBe(
      undefined,
    );
    expect(parseWorkspaceEntry("arn:aws-cn:aps:cn-north-1:123456789012:workspace/ws-a")).toEqual({
      id: "ws-a",
      region: "cn-north-1",
      partition: "aws-cn",
    });
    expect(
      parseWorkspaceEntry("https://aps-workspaces-fips.us-gov-west-1.amazonaws.com/workspaces/ws-b"),
    ).toEqual({
      id: "ws-b",
      region: "us-gov-west-1",
    });
    expect(parseWorkspaceEntry("arn:aws:aps:eu-west-123:123456789012:workspace/ws-a")).toBeUndefined();
  });
});

describe("workspaceKey: one key for every spelling that could reach one workspace", () => {
  const id = fc
    .string({ unit: fc.constantFrom("a", "B", "0", "9", "_", "-"), minLength: 1, maxLength: 20 })
    .map((rest) => `ws-${rest}`);
  const cased = (text: string, flips: boolean[]) =>
    [...text].map((char, i) => (flips[i % flips.length] ? char.toUpperCase() : char.toLowerCase())).join("");

  test.prop([id, fc.array(fc.boolean(), { minLength: 1 }), fc.boolean(), fc.boolean()])(
    "a backend URL (AMP's host or another, with or without its trailing slash, its id in any case or percent-escaped) and the id itself",
    (workspace, flips, slash, escaped) => {
      const written = escaped
        ? encodeURIComponent(cased(workspace, flips)).replace("-", "%2D")
        : cased(workspace, flips);
      const key = workspace.toLowerCase();
      expect(workspaceKey(cased(workspace, flips))).toBe(key);
      for (const host of ["https://aps-workspaces.eu-west-1.amazonaws.com", "http://127.0.0.1:9090"]) {
        expect(workspaceKey(`${host}/workspaces/${written}${slash ? "/" : ""}`)).toBe(key);
      }
    },
  );

  it("no key for a URL naming no workspace", () => {
    expect(workspaceKey("https://mimir.example.com/prometheus")).toBeUndefined();
    expect(workspaceKey("https://h/workspace/ws-a")).toBeUndefined();
  });
});
