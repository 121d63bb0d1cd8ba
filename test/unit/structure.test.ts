import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  analyze,
  type Baseline,
  compare,
  EXEMPT_FUNCTIONS,
  formatBaseline,
  formatReport,
  main,
  measureFunctions,
  toBaseline,
} from "../../scripts/structure.mjs";

// The structure check (scripts/structure.mjs) on small repositories written to a temporary directory:
// each rule finds its violation and passes the clean case, and the baseline ratchets.

const roots: string[] = [];

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  vi.restoreAllMocks();
});

/** A repository with `files` (path → text) in a fresh temporary directory. */
function repository(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "structure-"));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** A function declaration `name` of exactly `lines` lines. */
function functionOf(name: string, lines: number): string {
  const body = Array.from({ length: lines - 2 }, (_, i) => `  const v${i} = ${i};`);
  return [`export function ${name}(): void {`, ...body, "}", ""].join("\n");
}

/** A text of `lines` lines. */
function linesOf(lines: number): string {
  return Array.from({ length: lines }, (_, i) => `export const c${i} = ${i};\n`).join("");
}

const NO_BASELINE: Partial<Baseline> = {};

describe("function length", () => {
  it("reports a function over 80 lines and passes one of 80", () => {
    const root = repository({
      "src/long.ts": functionOf("long", 81),
      "src/fine.ts": functionOf("fine", 80),
    });
    const report = analyze(root);
    expect(report.longFunctions.map((fn) => [fn.file, fn.name, fn.lines])).toEqual([
      ["src/long.ts", "long", 81],
    ]);
    expect(report.functions.find((fn) => fn.name === "fine")?.lines).toBe(80);
    expect(compare(report, NO_BASELINE).failures).toEqual([
      "function long (src/long.ts) is 81 lines (max 80)",
    ]);
    expect(analyze(repository({ "src/fine.ts": functionOf("fine", 80) })).longFunctions).toEqual([]);
  });

  it("measures methods, arrow functions and function expressions under the names they are known by", () => {
    const text = [
      "/** Doc comments do not count. */",
      "export class Scanner {", // 2
      "  constructor() {}",
      "  get size(): number {",
      "    return 1;",
      "  }",
      "  scan(): void {", // 7
      "    const step = () => {",
      "      return 1;",
      "    };",
      "  }",
      "}",
      "export const handler = async (): Promise<void> => {", // 13
      "  await Promise.resolve().then(() => {",
      "    return 2;",
      "  });",
      "};",
      "const named = function inner(): number {", // 18
      "  return 3;",
      "};",
      "const table = {",
      "  read(): number {",
      "    return named();",
      "  },",
      "};",
      "export function factory() {",
      "  return () => table;",
      "}",
      "export function overloaded(a: string): string;",
      "export function overloaded(a: string): string {",
      "  return a;",
      "}",
      "",
    ].join("\n");
    const found = measureFunctions("src/x.ts", text).map((fn) => `${fn.name}@${fn.line}:${fn.lines}`);
    expect(found).toEqual([
      "Scanner.constructor@3:1",
      "Scanner.get size@4:3",
      "Scanner.scan@7:5",
      "Scanner.scan.step@8:3",
      "handler@13:5",
      "handler.(then callback)@14:3",
      "named@18:3",
      "table.read@22:3",
      "factory@26:3",
      "factory.(returned)@27:1",
      "overloaded@30:3",
    ]);
  });

  it("exempts a function by file and name, and says when an exemption names nothing", () => {
    const root = repository({
      "src/scan.ts": `export class Scanner {\n  ${functionOf("scan", 90).replace("export function ", "")}}\n`,
    });
    const exempt = [{ file: "src/scan.ts", name: "Scanner.scan", why: "the state machine" }];
    const report = analyze(root, { exempt });
    expect(report.longFunctions).toMatchObject([{ name: "Scanner.scan", exempt: "the state machine" }]);
    expect(compare(report, NO_BASELINE).failures).toEqual([]);
    expect(toBaseline(report).functions).toEqual([]);
    const stale = analyze(root, { exempt: [{ file: "src/scan.ts", name: "Scanner.old", why: "gone" }] });
    expect(stale.missingExemptions).toHaveLength(1);
    expect(compare(stale, NO_BASELINE).failures).toHaveLength(1);
  });

  it("the answer scanner's exemption names a function that exists", () => {
    for (const entry of EXEMPT_FUNCTIONS) {
      const text = readFileSync(fileURLToPath(new URL(`../../${entry.file}`, import.meta.url)), "utf8");
      expect(measureFunctions(entry.file, text).map((fn) => fn.name)).toContain(entry.name);
    }
  });
});

describe("src/app.ts length", () => {
  it("fails over 150 lines without a baseline and passes at 150", () => {
    const over = analyze(repository({ "src/app.ts": linesOf(151) }));
    expect(over.appLines).toBe(151);
    expect(compare(over, NO_BASELINE).failures).toEqual(["src/app.ts is 151 lines (target ≤ 150)"]);
    const met = analyze(repository({ "src/app.ts": linesOf(150) }));
    expect(compare(met, NO_BASELINE)).toEqual({ failures: [], fixed: [], improved: [] });
    expect(toBaseline(met).appLines).toBeNull();
  });

  it("ratchets: fails when it grows past its baseline, tells when it shrinks or meets the target", () => {
    const report = analyze(repository({ "src/app.ts": linesOf(300) }));
    expect(compare(report, { appLines: 300 })).toEqual({ failures: [], fixed: [], improved: [] });
    expect(compare(report, { appLines: 299 }).failures).toEqual([
      "src/app.ts grew to 300 lines (baseline 299)",
    ]);
    expect(compare(report, { appLines: 400 }).improved).toEqual(["src/app.ts: 300 lines (baseline 400)"]);
    const met = analyze(repository({ "src/app.ts": linesOf(100) }));
    expect(compare(met, { appLines: 400 })).toEqual({
      failures: [],
      fixed: ["src/app.ts length (now 100, target ≤ 150)"],
      improved: [],
    });
  });
});

describe("import cycles", () => {
  it("finds a cycle of static imports, resolving `.js` to `.ts`", () => {
    const root = repository({
      "src/a.ts": 'import { b } from "./b.js";\nexport const a = () => b;\n',
      "src/b.ts": 'import { c } from "./sub/c.js";\nexport const b = c;\n',
      "src/sub/c.ts": 'import { a } from "../a.js";\nexport const c = a;\n',
    });
    const report = analyze(root);
    expect(report.cycles).toEqual([
      {
        files: ["src/a.ts", "src/b.ts", "src/sub/c.ts"],
        path: ["src/a.ts", "src/b.ts", "src/sub/c.ts", "src/a.ts"],
        kind: "runtime",
      },
    ]);
    expect(compare(report, NO_BASELINE).failures).toEqual([
      "import cycle src/a.ts ⇄ src/b.ts ⇄ src/sub/c.ts",
    ]);
  });

  it("counts `import type` and `import()` too, and says what closes the cycle", () => {
    const types = analyze(
      repository({
        "src/trace.ts":
          'export type { T } from "./xray.js";\nexport const load = () => import("./xray.js");\n',
        "src/xray.ts": 'import type { U } from "./trace.js";\nexport type T = U;\n',
      }),
    );
    expect(types.cycles).toMatchObject([{ files: ["src/trace.ts", "src/xray.ts"], kind: "types" }]);
    const dynamic = analyze(
      repository({
        "src/a.ts": 'export const load = () => import("./b.js");\n',
        "src/b.ts": 'import { load } from "./a.js";\nexport const again = load;\n',
      }),
    );
    expect(dynamic.cycles).toMatchObject([{ files: ["src/a.ts", "src/b.ts"], kind: "dynamic" }]);
  });

  it("passes imports that do not come back, and types shared through a module of their own", () => {
    const root = repository({
      "src/types.ts": "export interface Trace { close(): void }\n",
      "src/trace.ts":
        'import type { Trace } from "./types.js";\nexport const load = () => import("./xray.js");\nexport type { Trace };\n',
      "src/xray.ts":
        'import type { Trace } from "./types.js";\nexport const make = (): Trace => ({ close() {} });\n',
      "tools/index.ts": 'import { load } from "../src/trace.js";\nexport const tools = [load];\n',
    });
    const report = analyze(root);
    expect(report.edges).toHaveLength(4);
    expect(report.cycles).toEqual([]);
    expect(compare(report, NO_BASELINE).failures).toEqual([]);
  });
});

describe("forbidden folder imports", () => {
  it("reports each rule of DESIGN.md §2", () => {
    const root = repository({
      "src/http/event.ts": 'import { tools } from "../../tools/index.js";\nexport const e = tools;\n',
      "src/http/rules.ts": 'import { VERSIONS } from "../bridge/versions.js";\nexport const r = VERSIONS;\n',
      "src/bridge/versions.ts":
        'import type { Q } from "../prometheus/query.js";\nexport const VERSIONS: Q[] = [];\n',
      "src/prometheus/query.ts": "export type Q = string;\n",
      "src/app.ts": "export const app = 1;\n",
      "src/routes/mcp.ts": "export const route = 1;\n",
      "tools/index.ts": 'import { app } from "../src/app.js";\nexport const tools = [app];\n',
      "tools/other.ts": 'import { route } from "../src/routes/mcp.js";\nexport const other = route;\n',
    });
    const report = analyze(root);
    expect(report.forbidden.map((edge) => [edge.from, edge.to, edge.rule])).toEqual([
      ["src/bridge/versions.ts", "src/prometheus/query.ts", "src/bridge ↛ src/prometheus"],
      ["src/http/event.ts", "tools/index.ts", "src/http ↛ tools"],
      ["src/http/rules.ts", "src/bridge/versions.ts", "src/http ↛ src/bridge"],
      ["tools/index.ts", "src/app.ts", "tools ↛ src/app"],
      ["tools/other.ts", "src/routes/mcp.ts", "tools ↛ src/routes"],
    ]);
    expect(compare(report, NO_BASELINE).failures).toHaveLength(5);
  });

  it("passes the imports the layout allows", () => {
    const root = repository({
      "src/config.ts": "export const config = 1;\n",
      "src/http/event.ts": 'import { config } from "../config.js";\nexport const e = config;\n',
      "src/bridge/bridge.ts": 'import { e } from "../http/event.js";\nexport const b = e;\n',
      "src/results/table.ts": "export const table = 1;\n",
      "src/appendix.ts": "export const appendix = 1;\n",
      "tools/index.ts":
        'import { table } from "../src/results/table.js";\nimport { appendix } from "../src/appendix.js";\nexport const t = [table, appendix];\n',
    });
    const report = analyze(root);
    expect(report.forbidden).toEqual([]);
    expect(compare(report, NO_BASELINE).failures).toEqual([]);
  });
});

describe("modules that run code on import", () => {
  it("reports a top-level call or await, also inside a top-level `if` or block", () => {
    const root = repository({
      "src/stdio.ts": "export async function serveStdio(): Promise<void> {}\n\nawait serveStdio();\n",
      "src/start.ts":
        'import { serveStdio } from "./stdio.js";\nif (process.env.X) {\n  void serveStdio();\n}\n',
      "src/iife.ts": "(async () => {})();\n",
    });
    const report = analyze(root, { entries: [] });
    expect(report.selfStarting.map((found) => `${found.file}:${found.line} ${found.text}`)).toEqual([
      "src/iife.ts:1 (async () => {})();",
      "src/start.ts:3 void serveStdio();",
      "src/stdio.ts:3 await serveStdio();",
    ]);
    expect(compare(report, NO_BASELINE).failures).toEqual([
      "module runs code on import: src/iife.ts",
      "module runs code on import: src/start.ts",
      "module runs code on import: src/stdio.ts",
    ]);
  });

  it("passes declarations, a module filling its own tables, and an entry file", () => {
    const root = repository({
      "src/stdio.ts": "export async function serveStdio(): Promise<void> {\n  await Promise.resolve();\n}\n",
      "src/stdioMain.ts": 'import { serveStdio } from "./stdio.js";\n\nawait serveStdio();\n',
      "src/table.ts": [
        "const CLASS = new Uint8Array(128);",
        "CLASS.fill(1);",
        'for (const c of "abc") CLASS[c.charCodeAt(0)] = 2;',
        "export const NAMES = new Set<string>();",
        'NAMES.add("x");',
        "export const config = JSON.parse('{}');",
        "export const later = () => console.log(CLASS);",
        "",
      ].join("\n"),
    });
    const report = analyze(root, { entries: ["src/stdioMain.ts"] });
    expect(report.selfStarting).toEqual([]);
    expect(compare(report, NO_BASELINE).failures).toEqual([]);
  });
});

describe("the baseline", () => {
  const violating = {
    "src/app.ts": linesOf(200),
    "src/long.ts": functionOf("long", 90),
    "src/a.ts": 'import type { B } from "./b.js";\nexport type A = B;\n',
    "src/b.ts": 'import type { A } from "./a.js";\nexport type B = A | 1;\n',
    "tools/index.ts": 'import { app } from "../src/handler.js";\nexport const t = app;\n',
    "src/handler.ts": "export const app = 1;\n",
    "src/stdio.ts": "export function serve() {}\nserve();\n",
  };

  it("lists today's violations; the check passes with it and fails on a new one or a worse one", () => {
    const report = analyze(repository(violating));
    const baseline = toBaseline(report);
    expect(baseline).toEqual({
      appLines: 200,
      functions: [{ file: "src/long.ts", name: "long", lines: 90 }],
      cycles: [["src/a.ts", "src/b.ts"]],
      forbiddenImports: [{ from: "tools/index.ts", to: "src/handler.ts" }],
      selfStarting: ["src/stdio.ts"],
    });
    expect(compare(report, baseline)).toEqual({ failures: [], fixed: [], improved: [] });
    expect(compare(report, NO_BASELINE).failures).toHaveLength(5);

    const worse = analyze(repository({ ...violating, "src/long.ts": functionOf("long", 95) }));
    expect(compare(worse, baseline).failures).toEqual([
      "function long (src/long.ts) grew to 95 lines (baseline 90)",
    ]);
    const shorter = analyze(repository({ ...violating, "src/long.ts": functionOf("long", 85) }));
    expect(compare(shorter, baseline)).toEqual({
      failures: [],
      fixed: [],
      improved: ["function long (src/long.ts): 85 lines (baseline 90)"],
    });
  });

  it("tells what is fixed without failing", () => {
    const baseline = toBaseline(analyze(repository(violating)));
    const clean = analyze(
      repository({
        "src/app.ts": linesOf(100),
        "src/long.ts": functionOf("long", 40),
        "src/stdio.ts": "export function serve() {}\n",
      }),
    );
    const comparison = compare(clean, baseline);
    expect(comparison.failures).toEqual([]);
    expect(comparison.fixed).toEqual([
      "src/app.ts length (now 100, target ≤ 150)",
      "function long (src/long.ts) over 80 lines",
      "import cycle src/a.ts ⇄ src/b.ts",
      "forbidden import tools/index.ts → src/handler.ts",
      "module runs code on import: src/stdio.ts",
    ]);
    expect(formatReport(clean, comparison)).toContain(
      "fixed, remove from baseline: function long (src/long.ts) over 80 lines",
    );
  });

  it("is written by --write-baseline and read back by the check (main's exit code)", () => {
    const root = repository(violating);
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    expect(main([], root)).toBe(1);
    expect(main(["--write-baseline"], root)).toBe(0);
    const written = JSON.parse(readFileSync(join(root, "scripts/structure-baseline.json"), "utf8"));
    expect(written).toMatchObject(toBaseline(analyze(root)));
    expect(main([], root)).toBe(0);
    writeFileSync(join(root, "src/longer.ts"), functionOf("longer", 100));
    expect(main([], root)).toBe(1);
    const printed = log.mock.calls.map((call) => String(call[0])).join("\n");
    expect(printed).toContain("NEW: function longer (src/longer.ts) is 100 lines (max 80)");
  });

  it("round-trips through its file format", () => {
    const baseline = toBaseline(analyze(repository(violating)));
    expect(JSON.parse(formatBaseline(baseline))).toEqual({ $comment: expect.any(String), ...baseline });
  });
});

describe("the table", () => {
  it("prints every measure", () => {
    const report = analyze(
      repository({ "src/app.ts": linesOf(160), "src/long.ts": functionOf("long", 81), "tools/x.ts": "" }),
    );
    const text = formatReport(report, compare(report, NO_BASELINE));
    expect(text).toContain("structure: 3 files (src/ 2, tools/ 1), 1 functions, 0 relative imports");
    expect(text).toMatch(/ {4}81 {2}long +src\/long\.ts:1 +over/);
    expect(text).toContain("src/app.ts: 160 lines, target ≤ 150 (10 over)");
    expect(text).toContain("Import cycles: 0");
    expect(text).toContain("Forbidden imports (DESIGN.md §2): 0");
    expect(text).toContain("Modules that run code on import: 0");
    expect(text).toContain("structure: 2 violation(s) not in scripts/structure-baseline.json");
  });
});
