// `npm run house`: measures how the house is laid out (issue 39's "Done when"), and prints it:
//   - README.md and docs/architecture.md lines;
//   - the files loose at the root of src/;
//   - the 10 longest files of src/ and tools/, and every one over 500 lines but the answer scanner and
//     generated tables (a file saying "generated" in its first lines);
//   - the 10 longest functions (from the line a function starts on to the line it ends on, as the
//     TypeScript compiler parses it);
//   - the import cycles among our modules (relative imports of src/, tools/, view/, scripts/; type-only
//     ones too, as biome.json's noImportCycles counts them);
//   - validations per message, from the JSON file `--validations=<file>` names (the test that measures
//     it, test/unit/validationsPerMessage.test.ts, can write one);
//   - with `--cold-start`, the bench's cold-start rows (`npm run bench -- --only=coldStart`; another case
//     with `--cold-start=<case>`).
// It measures and exits 0; `--check` fails (exit 1) when README.md is over 300 lines, more than 6 files
// are loose in src/, or there is an import cycle. `--root=<dir>` measures another tree (the test does).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const LIMITS = { readmeLines: 300, looseFiles: 6, fileLines: 500, cycles: 0 };
/** Allowed over LIMITS.fileLines: the answer scanner's state machine (one hot loop, see its comment). */
export const LONG_FILE_EXEMPT = ["src/prometheus/answerStream.ts"];
const SOURCE = /\.(ts|mts|cts|mjs|cjs|js)$/;

const toPosix = (path) => path.split(sep).join("/");
const lineCount = (text) => (text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0));

/** Source files under `folders` of `root` (repository-relative, posix, sorted; no .d.ts). */
function sources(root, folders) {
  return folders.flatMap((folder) => {
    if (!existsSync(join(root, folder))) return [];
    return readdirSync(join(root, folder), { recursive: true })
      .map((name) => `${folder}/${toPosix(String(name))}`)
      .filter((file) => SOURCE.test(file) && !/\.d\.[mc]?ts$/.test(file) && !file.includes("node_modules/"))
      .sort();
  });
}

/** Every function with a body in a file: { file, name, line, lines }. */
export function functionsOf(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const nameOf = (node) => {
    if (node.name !== undefined && !ts.isComputedPropertyName(node.name)) return node.name.getText(source);
    if (ts.isConstructorDeclaration(node)) return "constructor";
    const parent = node.parent;
    if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name) {
      return parent.name.getText(source);
    }
    return ts.isCallExpression(parent)
      ? `(${parent.expression.getText(source).split(".").pop()} callback)`
      : "(anonymous)";
  };
  const visit = (node, scope) => {
    let inner = scope;
    if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
      const line = (at) => source.getLineAndCharacterOfPosition(at).line + 1;
      const name = [...scope, nameOf(node)].join(".");
      found.push({
        file,
        name,
        line: line(node.getStart(source)),
        lines: line(node.getEnd()) - line(node.getStart(source)) + 1,
      });
      inner = [...scope, nameOf(node)];
    } else if (ts.isClassLike(node) && node.name !== undefined) {
      inner = [...scope, node.name.text];
    }
    ts.forEachChild(node, (child) => visit(child, inner));
  };
  visit(source, []);
  return found;
}

/** The relative imports of a file (import, export from, import(), require(), import type), as written. */
function importsOf(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    const specifier =
      ts.isImportDeclaration(node) || ts.isExportDeclaration(node)
        ? node.moduleSpecifier
        : ts.isCallExpression(node) &&
            (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
              (ts.isIdentifier(node.expression) && node.expression.text === "require"))
          ? node.arguments[0]
          : ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)
            ? node.argument.literal
            : undefined;
    if (specifier !== undefined && ts.isStringLiteralLike(specifier) && specifier.text.startsWith(".")) {
      found.push(specifier.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The file a relative import names, among `known` (`./x.js` is ./x.ts when that is ours), or undefined. */
function resolveImport(from, specifier, known) {
  const target = toPosix(join(dirname(from), specifier));
  const js = /^(.*)\.(m|c)?js$/.exec(target);
  const candidates = [target, `${target}.ts`, `${target}/index.ts`];
  if (js) candidates.unshift(`${js[1]}.${js[2] ?? ""}ts`);
  return candidates.find((candidate) => known.has(candidate));
}

/** The import cycles (strongly connected components of more than one file, or a file importing itself). */
export function cyclesOf(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const cycles = [];
  const connect = (node) => {
    index.set(node, index.size);
    low.set(node, index.get(node));
    stack.push(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) connect(to);
      if (stack.includes(to)) low.set(node, Math.min(low.get(node), low.get(to)));
    }
    if (low.get(node) !== index.get(node)) return;
    const members = stack.splice(stack.indexOf(node));
    if (members.length > 1 || graph.get(node)?.includes(node)) cycles.push(members.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) connect(node);
  return cycles;
}

const isGenerated = (text) => /generated/i.test(text.split("\n").slice(0, 5).join("\n"));

/** Everything `npm run house` prints, measured in `root`. */
export function measure(root) {
  const read = (file) => readFileSync(join(root, file), "utf8");
  const linesOf = (file) => (existsSync(join(root, file)) ? lineCount(read(file)) : undefined);
  const loose = existsSync(join(root, "src"))
    ? readdirSync(join(root, "src"))
        .filter((name) => statSync(join(root, "src", name)).isFile())
        .sort()
    : [];
  const measured = sources(root, ["src", "tools"]).map((file) => ({ file, text: read(file) }));
  const files = measured
    .map(({ file, text }) => ({ file, lines: lineCount(text), generated: isGenerated(text) }))
    .sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file));
  const functions = measured
    .filter(({ file }) => /\.[mc]?ts$/.test(file))
    .flatMap(({ file, text }) => functionsOf(file, text))
    .sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file));
  const ours = sources(root, ["src", "tools", "view", "scripts"]);
  const known = new Set(ours);
  const graph = new Map(
    ours.map((file) => [
      file,
      [...new Set(importsOf(file, read(file)).map((spec) => resolveImport(file, spec, known)))].filter(
        Boolean,
      ),
    ]),
  );
  return {
    readmeLines: linesOf("README.md"),
    architectureLines: linesOf("docs/architecture.md"),
    loose,
    longestFiles: files.slice(0, 10),
    overLimit: files.filter(
      (f) => f.lines > LIMITS.fileLines && !f.generated && !LONG_FILE_EXEMPT.includes(f.file),
    ),
    longestFunctions: functions.slice(0, 10),
    functionCount: functions.length,
    cycles: cyclesOf(graph),
  };
}

/** What `--check` fails on, one line each (empty: all within LIMITS). */
export function failures(report) {
  const out = [];
  if ((report.readmeLines ?? 0) > LIMITS.readmeLines)
    out.push(`README.md is ${report.readmeLines} lines (≤ ${LIMITS.readmeLines})`);
  if (report.loose.length > LIMITS.looseFiles)
    out.push(`${report.loose.length} files loose in src/ (≤ ${LIMITS.looseFiles})`);
  if (report.cycles.length > LIMITS.cycles) out.push(`${report.cycles.length} import cycle(s) (0 expected)`);
  return out;
}

/** The report's text. */
export function format(report, validations) {
  const row = (lines, what) => `  ${String(lines).padStart(5)}  ${what}`;
  return [
    `README.md: ${report.readmeLines ?? "absent"} lines (target ≤ ${LIMITS.readmeLines})`,
    `docs/architecture.md: ${report.architectureLines ?? "absent"}${report.architectureLines === undefined ? "" : " lines"}`,
    `Files loose in src/: ${report.loose.length} (target ≤ ${LIMITS.looseFiles})${report.loose.length ? `: ${report.loose.join(", ")}` : ""}`,
    "Longest files in src/ and tools/ (lines):",
    ...report.longestFiles.map((f) => row(f.lines, f.file)),
    `Files over ${LIMITS.fileLines} lines (the answer scanner and generated tables excepted): ${report.overLimit.length}`,
    ...report.overLimit.map((f) => row(f.lines, f.file)),
    `Longest functions (lines; ${report.functionCount} functions):`,
    ...report.longestFunctions.map((fn) => row(fn.lines, `${fn.name}  ${fn.file}:${fn.line}`)),
    `Import cycles among our modules: ${report.cycles.length} (0 expected)`,
    ...report.cycles.map((cycle) => `  ${cycle.join(" ⇄ ")}`),
    `Validations per message: ${validations ?? "see test/unit/validationsPerMessage.test.ts (pass --validations=<its JSON file>)"}`,
  ].join("\n");
}

/**
 * The bench's output as rows: each figure (a JSON line with `id`) as `id: ours p50 … vs <baseline> p50 …`,
 * other lines as they are.
 */
export function benchRows(stdout) {
  const ms = (value) => (typeof value === "number" ? value.toFixed(1) : JSON.stringify(value));
  const side = (value) =>
    value?.p50 === undefined ? ms(value) : `p50 ${ms(value.p50)}, p99 ${ms(value.p99)}`;
  return stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      let figure;
      try {
        figure = JSON.parse(line);
      } catch {
        return `  ${line}`;
      }
      if (figure?.id === undefined) return `  ${line}`;
      const baseline =
        figure.baseline === undefined ? "" : ` vs ${figure.baseline.name} ${side(figure.baseline.value)}`;
      const ratio = figure.ratio === undefined ? "" : ` (ratio ${figure.ratio})`;
      return `  ${figure.id}: ${side(figure.ours)} ${figure.unit ?? ""}${baseline}${ratio}`;
    })
    .join("\n");
}

/** One line per message kind (`message`, `params`, `arguments` checks, ours and the SDK's), else the JSON as written. */
function describeValidations(text) {
  const counted = JSON.parse(text);
  const kinds = Object.entries(counted);
  if (!kinds.every(([, count]) => typeof count === "object" && count !== null && "message" in count)) {
    return JSON.stringify(counted);
  }
  const line = ([kind, count]) =>
    `${kind}: message ${count.message}, params ${count.params}, arguments ${count.arguments}`;
  return kinds.map(line).join("; ");
}

/** Prints the report for the command line `argv`; returns the exit code. */
export function main(argv) {
  const option = (name) => argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
  const root = resolve(option("root") ?? fileURLToPath(new URL("..", import.meta.url)));
  const report = measure(root);
  // The file test/unit/validationsPerMessage.test.ts writes, unless another is named.
  const written = join(root, ".tmp", "validations-per-message.json");
  const validationsFile = option("validations") ?? (existsSync(written) ? written : undefined);
  const validations =
    validationsFile === undefined ? undefined : describeValidations(readFileSync(validationsFile, "utf8"));
  console.log(format(report, validations));
  const coldStart = argv.includes("--cold-start") ? "coldStart" : option("cold-start");
  if (coldStart !== undefined) {
    console.log(`Cold start (npm run bench -- --only=${coldStart}):`);
    const bench = spawnSync("npm", ["run", "--silent", "bench", "--", `--only=${coldStart}`], {
      cwd: root,
      encoding: "utf8",
    });
    console.log(benchRows(bench.stdout));
    if (bench.status !== 0) console.log(`  (the bench exited ${bench.status}: ${bench.stderr.trim()})`);
  }
  if (!argv.includes("--check")) return 0;
  const failed = failures(report);
  for (const line of failed) console.log(`check: ${line}`);
  return failed.length === 0 ? 0 : 1;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
