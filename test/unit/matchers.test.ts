import { fc, test } from "@fast-check/vitest";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  type LabelMatcher,
  loadRegexEngine,
  matches,
  matchesAny,
  parseSelectors,
  SelectorError,
} from "../../src/promql/matchers.js";
import { matcherText } from "../../src/results/silences.js";

const ALERTS = { nameLabel: "alertname" };
const SERIES = { nameLabel: "__name__" };

async function one(text: string, options = ALERTS): Promise<LabelMatcher[]> {
  const [selector, ...rest] = await parseSelectors([text], options);
  expect(rest).toEqual([]);
  return selector as LabelMatcher[];
}

async function rejection(text: string, options = ALERTS): Promise<SelectorError> {
  const error = await parseSelectors([text], options).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `${text} should be rejected`).toBeInstanceOf(SelectorError);
  return error as SelectorError;
}

// A firing KubePodCrashLooping alert's labels, as Prometheus 2.42 lists it.
const CRASHLOOP = {
  alertname: "KubePodCrashLooping",
  container: "api",
  namespace: "shop",
  pod: "api-7c9d8b5f6-x2k4p",
  severity: "warning",
};

describe("parseSelectors: the forms a user writes", () => {
  it("matchers in braces", async () => {
    expect(await one('{alertname="HighErrorRate", severity=~"page|critical"}')).toEqual([
      { name: "alertname", type: "=", value: "HighErrorRate" },
      { name: "severity", type: "=~", value: "page|critical" },
    ]);
  });

  it("a name before the braces becomes a matcher on the name label, first", async () => {
    expect(await one('HighErrorRate{severity!="info", team!~"db.*"}')).toEqual([
      { name: "alertname", type: "=", value: "HighErrorRate" },
      { name: "severity", type: "!=", value: "info" },
      { name: "team", type: "!~", value: "db.*" },
    ]);
    expect(await one("up{job='node'}", SERIES)).toEqual([
      { name: "__name__", type: "=", value: "up" },
      { name: "job", type: "=", value: "node" },
    ]);
  });

  it("a name alone, with spaces around it", async () => {
    expect(await one("  Watchdog\n")).toEqual([{ name: "alertname", type: "=", value: "Watchdog" }]);
    expect(await one("node:cpu:rate5m", SERIES)).toEqual([
      { name: "__name__", type: "=", value: "node:cpu:rate5m" },
    ]);
  });

  it("names the parser reads as keywords are names here, alone and before braces", async () => {
    for (const name of ["nan", "Inf", "offset", "on", "bool", "sum", "rate", "InfoInhibitor"]) {
      expect(await one(name)).toEqual([{ name: "alertname", type: "=", value: name }]);
      expect(await one(`${name} {severity="page"}`)).toEqual([
        { name: "alertname", type: "=", value: name },
        { name: "severity", type: "=", value: "page" },
      ]);
    }
  });

  it("matchers without braces", async () => {
    expect(await one('alertname="X", severity=~"page|critical"')).toEqual([
      { name: "alertname", type: "=", value: "X" },
      { name: "severity", type: "=~", value: "page|critical" },
    ]);
    expect(await one('namespace != "kube-system"')).toEqual([
      { name: "namespace", type: "!=", value: "kube-system" },
    ]);
    expect(await one('"service.name"="checkout"')).toEqual([
      { name: "service.name", type: "=", value: "checkout" },
    ]);
  });

  it("__name__ and a quoted name alone in the braces stand for the name label", async () => {
    expect(await one('{__name__=~"Kube.*", severity="critical"}')).toEqual([
      { name: "alertname", type: "=~", value: "Kube.*" },
      { name: "severity", type: "=", value: "critical" },
    ]);
    expect(await one('{"http.server.duration", "service.name"="cart"}', SERIES)).toEqual([
      { name: "__name__", type: "=", value: "http.server.duration" },
      { name: "service.name", type: "=", value: "cart" },
    ]);
  });

  it("a trailing comma and a comment are fine", async () => {
    expect(await one('{severity="page",} # paging only')).toEqual([
      { name: "severity", type: "=", value: "page" },
    ]);
  });

  it("each text is one selector, in order; none gives none", async () => {
    expect(await parseSelectors(["A", 'B{x="1"}'], ALERTS)).toEqual([
      [{ name: "alertname", type: "=", value: "A" }],
      [
        { name: "alertname", type: "=", value: "B" },
        { name: "x", type: "=", value: "1" },
      ],
    ]);
    expect(await parseSelectors([], ALERTS)).toEqual([]);
  });
});

describe("parseSelectors: strings are unquoted as PromQL does", () => {
  const cases: Array<[string, string]> = [
    [String.raw`{a="say \"hi\"\\now"}`, 'say "hi"\\now'],
    [String.raw`{a='it\'s "quoted"'}`, `it's "quoted"`],
    ["{a=`C:\\path\\n`}", "C:\\path\\n"],
    [String.raw`{a="tab\there\nline"}`, "tab\there\nline"],
    [String.raw`{a="\a\b\f\r\v"}`, "\x07\b\f\r\v"],
    [String.raw`{a="\x41\102"}`, "AB"],
    [String.raw`{a="caf\xc3\xa9"}`, "café"],
    [String.raw`{a="\u00e9\U0001F600"}`, "é😀"],
    ['{a="日本語 😀"}', "日本語 😀"],
  ];
  for (const [text, value] of cases) {
    it(text, async () => {
      expect(await one(text)).toEqual([{ name: "a", type: "=", value }]);
    });
  }

  const bad = [
    String.raw`{a="\q"}`,
    String.raw`{a="\'"}`,
    String.raw`{a='\"'}`,
    String.raw`{a="\xc3"}`,
    String.raw`{a="\x4"}`,
    String.raw`{a="\400"}`,
    String.raw`{a="\ud800"}`,
    String.raw`{a="\U00110000"}`,
    '{a="open}',
  ];
  for (const text of bad) {
    it(`rejects ${text}`, async () => {
      expect((await rejection(text)).message).toContain(JSON.stringify(text));
    });
  }
});

describe("parseSelectors: anything but one vector selector is rejected", () => {
  const cases: Array<[string, RegExp]> = [
    ["", /empty/],
    ["   ", /empty/],
    ["{}", /no matchers/],
    ['rate(http_requests_total{code="500"}[5m])', /function call/],
    ['http_requests_total{code="500"}[5m]', /range selector/],
    ['up{job="node"} offset 5m', /offset/],
    ['up{job="node"} @ 1677664800', /@/],
    ["sum(up)", /aggregation/],
    ['{severity="page"} or {severity="critical"}', /give each as its own text/],
    ['({severity="page"})', /parentheses/],
    ["42", /number/],
    ['"Watchdog"', /string/],
    ['{severity="page"', /ends too soon|does not parse/],
    ['{a="b"}{c="d"}', /does not parse/],
    ['Watchdog{"Other"}', /name twice/],
    ['alertname=="X"', /does not parse/],
    ["Watchdog Other", /does not parse/],
  ];
  for (const [text, reason] of cases) {
    it(JSON.stringify(text), async () => {
      const error = await rejection(text);
      expect(error.name).toBe("SelectorError");
      expect(error.message).toMatch(reason);
      // The model can see what it sent and what to write instead.
      expect(error.message).toContain(JSON.stringify(text));
      expect(error.message).toContain('{alertname="X", severity=~"page|critical"}');
    });
  }

  it("one bad text among good ones rejects the call", async () => {
    const error = await rejection('A"');
    expect(error.message).toContain('"A\\""');
    await expect(parseSelectors(["Watchdog", "sum(x)"], ALERTS)).rejects.toThrow(/aggregation/);
  });
});

describe("regexes", () => {
  async function regexMatches(regex: string, value: string | undefined): Promise<boolean> {
    const selectors = await parseSelectors([`{a=~${JSON.stringify(regex)}}`], ALERTS);
    return matchesAny(value === undefined ? {} : { a: value }, selectors);
  }

  it("are anchored at both ends", async () => {
    expect(await regexMatches("shop", "shop")).toBe(true);
    expect(await regexMatches("shop", "shopping")).toBe(false);
    expect(await regexMatches("shop", "myshop")).toBe(false);
    expect(await regexMatches("a|b", "ab")).toBe(false);
    expect(await regexMatches("a|b", "b")).toBe(true);
  });

  it("let . match a newline and whole code points", async () => {
    expect(await regexMatches("a.b", "a\nb")).toBe(true);
    expect(await regexMatches("a.b", "a😀b")).toBe(true);
  });

  it("match a missing label as the empty string", async () => {
    expect(await regexMatches("", undefined)).toBe(true);
    expect(await regexMatches(".*", undefined)).toBe(true);
    expect(await regexMatches(".+", undefined)).toBe(false);
  });

  it("take RE2 syntax that JavaScript writes differently", async () => {
    expect(await regexMatches("(?i)kube.*", "KubeAPIDown")).toBe(true);
    expect(await regexMatches("kube.*", "KubeAPIDown")).toBe(false);
    expect(await regexMatches(String.raw`api\-\d+\_x`, "api-12_x")).toBe(true);
    expect(await regexMatches("a{b}", "a{b}")).toBe(true);
    expect(await regexMatches("a{2}", "aa")).toBe(true);
    expect(await regexMatches("[]a]+", "]a]")).toBe(true);
    expect(await regexMatches("[^]a]", "b")).toBe(true);
    expect(await regexMatches("[^]a]", "]")).toBe(false);
    expect(await regexMatches(String.raw`\pL+`, "été")).toBe(true);
    expect(await regexMatches(String.raw`\x{41}`, "A")).toBe(true);
    expect(await regexMatches("(?P<zone>[a-z]+)-1", "eu-1")).toBe(true);
    expect(await regexMatches("(?s:a.b)", "a\nb")).toBe(true);
    expect(await regexMatches(String.raw`\Aab\z`, "ab")).toBe(true);
    expect(await regexMatches("[[:alpha:]_]+[[:digit:]]", "api_1")).toBe(true);
    expect(await regexMatches("[[:alpha:]]", "1")).toBe(false);
    expect(await regexMatches("[[:punct:]]+", "!/[`{~")).toBe(true);
    expect(await regexMatches("[[:punct:]]", "a")).toBe(false);
  });

  it("that do not compile, or use what RE2 has not, are rejected", async () => {
    const bad = ["(", "a)", "[a", "*", "(?=a)a", "(?<!a)b", String.raw`(a)\1`, "[[:nope:]]"];
    for (const regex of bad) {
      const error = await rejection(`{a=~${JSON.stringify(regex)}}`);
      expect(error.message).toContain("regex");
    }
    // A `!~` is checked too.
    expect((await rejection('{a!~"("}')).message).toContain("regex");
  });

  it("RE2's syntax, no more and no less: what Prometheus accepts and JavaScript's RegExp did not, and back", async () => {
    // Accepted, as Prometheus accepts them.
    expect(await regexMatches("(?U)a+", "aa")).toBe(true);
    expect(await regexMatches("a(?i)b", "aB")).toBe(true);
    expect(await regexMatches("a(?i)b", "AB")).toBe(false);
    expect(await regexMatches("[[:^alpha:]]", "1")).toBe(true);
    expect(await regexMatches("[[:^alpha:]]", "a")).toBe(false);
    expect(await regexMatches(String.raw`\Qa.b\E`, "a.b")).toBe(true);
    expect(await regexMatches(String.raw`\Qa.b\E`, "axb")).toBe(false);
    // RE2's \s is [\t\n\f\r ]: not a vertical tab, not a Unicode space.
    expect(await regexMatches(String.raw`\s`, "\t")).toBe(true);
    expect(await regexMatches(String.raw`\s`, "\v")).toBe(false);
    expect(await regexMatches(String.raw`\s`, "\u00a0")).toBe(false);
    // Rejected, as Prometheus rejects them: JavaScript-only escapes, a repeat count over 1000.
    for (const regex of [String.raw`\u0041`, String.raw`\cA`, "a{1001}"]) {
      expect((await rejection(`{a=~${JSON.stringify(regex)}}`)).message).toContain("not valid RE2");
    }
    expect(await regexMatches("a{1000}", "a".repeat(1000))).toBe(true);
  });

  it("a pathological regex against a long value answers, and correctly", async () => {
    const long = "a".repeat(50_000);
    expect(await regexMatches("(a+)+b", long)).toBe(false);
    expect(await regexMatches("(a+)+b", `${long}b`)).toBe(true);
    expect(await regexMatches("(a|aa)*c", long)).toBe(false);
    expect(await regexMatches("(.*a){20}", long)).toBe(true);
  });

  it("are compiled once, when parsed", async () => {
    const selectors = await parseSelectors(['{a=~"x.*", b!~"y"}'], ALERTS);
    const { RE2JS } = await loadRegexEngine();
    const compile = vi.spyOn(RE2JS, "compile");
    try {
      expect(matchesAny({ a: "xz", b: "z" }, selectors)).toBe(true);
      expect(matchesAny({ a: "xz", b: "y" }, selectors)).toBe(false);
      expect(compile).not.toHaveBeenCalled();
      // A selector parsed anew is compiled anew: the spy sees compilation.
      await parseSelectors(['{a=~"x.*"}'], ALERTS);
      expect(compile).toHaveBeenCalledTimes(1);
    } finally {
      compile.mockRestore();
    }
  });

  it("a matcher built by hand is compiled on first use; a bad one throws SelectorError", async () => {
    await loadRegexEngine();
    const good: LabelMatcher = { name: "pod", type: "=~", value: "api-.*" };
    expect(matches({ pod: "api-1" }, good)).toBe(true);
    expect(matches({ pod: "web-1" }, good)).toBe(false);
    expect(() => matches({}, { name: "pod", type: "=~", value: "(" })).toThrow(SelectorError);
  });
});

describe("matchesAny", () => {
  it("no selectors: everything passes", () => {
    expect(matchesAny(CRASHLOOP, [])).toBe(true);
    expect(matchesAny({}, [])).toBe(true);
  });

  it("all matchers of a selector must match; any selector may", async () => {
    const selectors = await parseSelectors(
      ['KubePodCrashLooping{namespace="payments"}', '{severity="warning", container=~"api|web"}'],
      ALERTS,
    );
    expect(matchesAny(CRASHLOOP, selectors)).toBe(true);
    expect(matchesAny({ ...CRASHLOOP, container: "db" }, selectors)).toBe(false);
    expect(matchesAny({ ...CRASHLOOP, container: "db", namespace: "payments" }, selectors)).toBe(true);
  });

  it("a missing label equals the empty string", async () => {
    const noTeam = await parseSelectors(['{team=""}'], ALERTS);
    expect(matchesAny(CRASHLOOP, noTeam)).toBe(true);
    expect(matchesAny({ ...CRASHLOOP, team: "shop" }, noTeam)).toBe(false);
    const anyTeam = await parseSelectors(['{team!=""}'], ALERTS);
    expect(matchesAny(CRASHLOOP, anyTeam)).toBe(false);
  });

  it("reads only the set's own labels, never Object.prototype's", async () => {
    const selectors = await parseSelectors(['{constructor!="", toString=~".+"}'], ALERTS);
    expect(matchesAny({}, selectors)).toBe(false);
    expect(matchesAny({ constructor: "x", toString: "y" }, selectors)).toBe(true);
    const proto = await parseSelectors(['{__proto__="p"}'], ALERTS);
    expect(matchesAny(JSON.parse('{"__proto__": "p"}'), proto)).toBe(true);
    expect(matchesAny({}, proto)).toBe(false);
  });
});

// Label names as Prometheus writes them bare; values any text.
const labelName = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,12}$/);
const labelValueText = fc.string({ unit: "grapheme", maxLength: 20 });
const labelSetArb = fc.dictionary(labelName, labelValueText, { minKeys: 1, maxKeys: 6 });

/** A regex matching exactly `text`: RE2's special characters escaped. */
function literalRegex(text: string): string {
  return text.replace(/[\\.+*?()|[\]{}^$]/g, "\\$&");
}

describe("properties", () => {
  test.prop([labelSetArb, fc.nat()], { numRuns: 200 })(
    "a selector built from one of a set's labels matches it; != matches it not",
    async (labels, pick) => {
      const entries = Object.entries(labels);
      const [name, value] = entries[pick % entries.length] as [string, string];
      const equal = await parseSelectors([`{${name}=${JSON.stringify(value)}}`], ALERTS);
      expect(equal).toEqual([[{ name, type: "=", value }]]);
      expect(matchesAny(labels, equal)).toBe(true);
      const notEqual = await parseSelectors([`${name}!=${JSON.stringify(value)}`], ALERTS);
      expect(matchesAny(labels, notEqual)).toBe(false);
    },
  );

  test.prop([labelSetArb, fc.nat()], { numRuns: 200 })(
    "a regex of a value's literal text matches that value and nothing longer",
    async (labels, pick) => {
      const entries = Object.entries(labels);
      const [name, value] = entries[pick % entries.length] as [string, string];
      const [selector] = await parseSelectors([`{${name}=~${JSON.stringify(literalRegex(value))}}`], ALERTS);
      expect(matchesAny(labels, [selector as LabelMatcher[]])).toBe(true);
      expect(matchesAny({ ...labels, [name]: `${value}x` }, [selector as LabelMatcher[]])).toBe(false);
      expect(matchesAny({ ...labels, [name]: `x${value}` }, [selector as LabelMatcher[]])).toBe(false);
    },
  );

  test.prop(
    [
      fc.record({
        name: fc.oneof(labelName, fc.string({ unit: "grapheme", minLength: 1, maxLength: 10 })),
        value: labelValueText,
        isRegex: fc.constant(false),
        isEqual: fc.option(fc.boolean(), { nil: undefined }),
      }),
    ],
    { numRuns: 200 },
  )("a silence's matcher as written by silences.ts parses back to itself", async (raw) => {
    const text = matcherText(raw) as string;
    const [selector] = await parseSelectors([text], SERIES);
    expect(selector).toEqual([
      { name: raw.name, type: raw.isEqual === false ? "!=" : "=", value: raw.value },
    ]);
  });

  it("= and != are each other's negation, =~ and !~ too, a missing label reading as empty", async () => {
    let missing = 0;
    let present = 0;
    await fc.assert(
      fc.asyncProperty(
        labelSetArb,
        // A label of the set, or (null) one it most likely lacks.
        fc.option(fc.nat(), { nil: null }),
        labelName,
        fc.oneof(labelValueText, fc.constant(""), fc.constantFrom("a", "b", "x")),
        fc.constantFrom("", ".*", ".+", "a.*", "[a-z]+", "(?i)A|b"),
        async (labels, pick, other, value, regex) => {
          const names = Object.keys(labels);
          const name = pick === null ? other : (names[pick % names.length] as string);
          const [eq, ne, re, nre] = await parseSelectors(
            [
              `{${name}=${JSON.stringify(value)}}`,
              `{${name}!=${JSON.stringify(value)}}`,
              `{${name}=~${JSON.stringify(regex)}}`,
              `{${name}!~${JSON.stringify(regex)}}`,
            ],
            ALERTS,
          );
          const is = (selector: LabelMatcher[] | undefined) =>
            matchesAny(labels, [selector as LabelMatcher[]]);
          expect(is(eq)).toBe(!is(ne));
          expect(is(re)).toBe(!is(nre));
          if (!Object.hasOwn(labels, name)) {
            missing++;
            expect(is(eq)).toBe(value === "");
            expect(is(re)).toBe(
              new RegExp(`^(?:${regex.replace("(?i)", "")})$`, regex.startsWith("(?i)") ? "i" : "").test(""),
            );
          } else {
            present++;
            expect(is(eq)).toBe(labels[name] === value);
          }
        },
      ),
      { numRuns: 300 },
    );
    // Both branches ran, so both sets of assertions were made.
    expect(missing).toBeGreaterThan(0);
    expect(present).toBeGreaterThan(0);
  });
});

afterEach(() => {
  vi.unstubAllGlobals();
});
