import { describe, expect, it } from "vitest";
import { labelLayout } from "../../src/results/labelColumns.js";

/**
 * 40 pods of 4 containers on 5 nodes, in 2 namespaces (fewer values than containers): each container in
 * one of them, or unless `sharedNamespace` every container in both.
 */
function pods(sharedNamespace: boolean): Record<string, string>[] {
  return Array.from({ length: 40 }, (_, k) => {
    const container = ["api-gateway", "checkout-service", "catalog-search", "session-cache"][k % 4] as string;
    return {
      __name__: "container_memory_usage_bytes",
      pod: `${container}-7d9f8b6c4-${k.toString(36).padStart(5, "x")}`,
      container,
      namespace: sharedNamespace ? `team-${Math.floor(k / 20)}` : `team-${k % 2}`,
      node: `ip-10-0-${k % 5}-17.ec2.internal`,
    };
  });
}

describe("labelLayout", () => {
  it("moves a column that a column with more values determines under it (a container's namespace)", () => {
    const layout = labelLayout(pods(false));
    expect(layout.columns).toEqual(["pod", "node", "container"]);
    expect(layout.lookup?.container?.["api-gateway"]).toEqual({ namespace: "team-0" });
    expect(Object.keys(layout.lookup ?? {})).toEqual(["container"]);
  });

  it("keeps a column that no other column determines", () => {
    const layout = labelLayout(pods(true));
    expect(layout.columns).toEqual(["pod", "node", "container", "namespace"]);
    expect(layout.lookup).toBeUndefined();
  });
});
