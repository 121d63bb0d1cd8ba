import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseBackends } from "../../src/config/backends.js";
import { hasTenantPlaceholder, kindOf, withTenant } from "../../src/prometheus/backends.js";

const RULES = { inLambda: false, defaultRegion: "us-east-1" };

describe("a caller's tenant in a URL's path", () => {
  it("either stays one path segment of the same host, or is refused: it never changes where the request goes", () => {
    const template = "http://vmselect:8481/select/{tenant}/prometheus";
    let placed = 0;
    let refused = 0;
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.stringMatching(/^[0-9]{1,4}(:[0-9]{1,3})?$/)), (tenant) => {
        const url = withTenant(template, tenant);
        if (url === undefined) {
          refused++;
          return;
        }
        placed++;
        const parsed = new URL(url);
        expect(parsed.host).toBe("vmselect:8481");
        expect(parsed.search).toBe("");
        expect(parsed.hash).toBe("");
        const segments = parsed.pathname.split("/");
        expect(segments).toEqual(["", "select", tenant, "prometheus"]);
      }),
      { numRuns: 2_000 },
    );
    // Both branches ran: some tenants went in, others (slashes, dots, percent signs…) were refused.
    expect(placed).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(100);
  });

  it("refuses the tenants that would climb or split the path", () => {
    for (const tenant of ["..", ".", "a/b", "a%2fb", "a?b", "a#b", "", " 42", "x".repeat(129)]) {
      expect(withTenant("http://h/select/{tenant}/prometheus", tenant), tenant).toBeUndefined();
    }
    expect(withTenant("http://h/select/%7Btenant%7D/prometheus", "42:1")).toBe(
      "http://h/select/42:1/prometheus",
    );
    expect(hasTenantPlaceholder("http://h/select/0/prometheus")).toBe(false);
  });
});

describe("backend kinds and names", () => {
  it("infers the kind from the URL unless declared", () => {
    expect(kindOf("https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-a/", undefined)).toBe("amp");
    expect(kindOf("http://vmselect:8481/select/12:3/prometheus", undefined)).toBe("victoriametrics");
    expect(kindOf("http://thanos:10902", undefined)).toBe("prometheus");
    expect(kindOf("http://thanos:10902", "thanos")).toBe("thanos");
  });

  it("accepts exactly the names that cannot be taken for a workspace id", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 70 }), (name) => {
        let accepted = true;
        try {
          parseBackends(JSON.stringify({ [name]: { url: "http://p" } }), RULES);
        } catch {
          accepted = false;
        }
        expect(accepted).toBe(/^(?![Ww][Ss]-)[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/.test(name));
      }),
      { numRuns: 1_000 },
    );
    expect(() => parseBackends('{"ws-prod": {"url": "http://p"}}', RULES)).toThrow(/not starting with ws-/);
    expect(parseBackends('{"prod.eu-1": {"url": "http://p"}}', RULES)[0]?.name).toBe("prod.eu-1");
  });
});

describe("an entry wrong in several ways", () => {
  // The fields are judged alone by the schema (src/config/backendSchema.ts) and together by the rules
  // between them: the error names the first problem in the order an entry was always judged in.
  const thrown = (entry: Record<string, unknown>): string => {
    try {
      parseBackends(JSON.stringify({ a: entry }), RULES);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error("accepted");
  };

  it("names a rule between fields before a later field's own problem", () => {
    expect(thrown({ url: "http://u:p@h", auth: "bearer", kind: "influx" })).toBe(
      'backend "a" "url" without user:password@ with auth bearer (user:password@ is for auth none; with basic the pair goes in its secret)',
    );
    expect(thrown({ url: "http://p", secret: 5 })).toBe(
      'backend "a" without "secret" with auth none (it is read with basic or bearer)',
    );
    expect(thrown({ url: "http://p", auth: "basic", headers: 5 })).toBe(
      'backend "a" "secret" with auth basic: a Secrets Manager secret ARN or ssm:/parameter holding the user:password',
    );
  });

  it("names an earlier field's problem before a rule that reads later ones", () => {
    expect(thrown({ url: "http://p", auth: "bearer", kind: "influx" })).toBe(
      'backend "a" "kind" as one of amp, prometheus, mimir, cortex, thanos, victoriametrics',
    );
    expect(thrown({ url: "http://p", auth: "bearer", secret: 5, headers: 5 })).toBe(
      'backend "a" "secret" as a string',
    );
    expect(thrown({ url: "ftp://p", extra: 1 })).toMatch(
      /^backend "a" with only the fields url, .*; not extra$/,
    );
  });
});
