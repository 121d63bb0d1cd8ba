// The structure check (issue 24), run by CI as `npm run structure`: measures the TypeScript in src/ and
// tools/ with the compiler's own parser and prints a table of
//   - every function's length in lines (from the line it starts on to the line it ends on), those over
//     MAX_FUNCTION_LINES listed;
//   - src/app.ts's length against APP_TARGET_LINES;
//   - import cycles among our own modules;
//   - imports a folder may not make (DESIGN.md §2);
//   - modules that run code when imported (a top-level call or await, like `await serveStdio()`).
// What is wrong today is listed in scripts/structure-baseline.json: the check fails (exit 1) only on a
// violation not listed there, or one that got worse (a listed function that grew, app.ts longer than
// listed). A listed one that is gone is reported ("fixed, remove from baseline") without failing.
// `--write-baseline` rewrites the baseline from what the code is now.
//
// Tests import the analysis (test/unit/structure.test.ts, types in structure.d.mts); running this file
// runs main().
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** The folders measured, relative to the repository. */
export const ROOTS = ["src", "tools", "view"];
export const MAX_FUNCTION_LINES = 80;
export const APP_FILE = "src/app.ts";
export const APP_TARGET_LINES = 150;
export const BASELINE_FILE = "scripts/structure-baseline.json";

/**
 * Functions allowed over MAX_FUNCTION_LINES, by file and name, each with the reason.
 *
 * The answer scanner's state machine: one loop over every byte of a Prometheus answer (tens of MB), a
 * `switch` on the state with the hot state (position, state, depth, closing brackets) in locals. Split
 * into functions, that state moves to fields and each token pays a call on the path every byte takes
 * (the `statistics-cost` and `budget-cost` bench cases read answers through it); its states are
 * documented together where they are, in one place.
 */
export const EXEMPT_FUNCTIONS = [
  {
    file: "src/prometheus/answerStream.ts",
    name: "AnswerScanner.scan",
    why: "the answer scanner's state machine: one hot loop with its state in locals",
  },
];

/**
 * What a folder's modules may not import (DESIGN.md §2: a reader knows from a file's folder what it may
 * import). A target names a folder or a module without its extension: `src/app` is src/app.ts and
 * anything under src/app/. Every import counts, `import type` too: a type is knowledge of the module.
 */
export const FORBIDDEN_IMPORTS = [
  {
    from: "tools",
    to: ["src/http", "src/routes", "src/bridge", "src/app", "src/handler"],
    why: "tools/ knows nothing of HTTP or Lambda",
  },
  {
    from: "src/bridge",
    to: ["src/prometheus", "tools"],
    why: "bridge/ knows nothing of Prometheus or the tools",
  },
  {
    from: "src/http",
    to: ["tools", "src/bridge"],
    why: "http/ knows nothing of the tools, nor of the bridge",
  },
  {
    from: "view",
    to: ["src", "tools"],
    why: "view/ is the MCP Apps page, run in the host's browser: it knows only what its tool results say",
  },
  {
    from: "src",
    to: ["view"],
    why: "the server serves the view's page as built (scripts/view-build.mjs), never its code",
  },
  {
    from: "src/protocol",
    to: ["src/bridge", "src/routes", "src/prometheus", "tools"],
    why: "protocol/ holds the JSON-RPC and MCP rules alone: no bridge, route, Prometheus or tool",
  },
];

/**
 * Entry files, which run when loaded by design: each only starts what the module it imports exports, so
 * that module can be imported (tests, the bench) without starting anything. The view's page script is
 * the page itself: it starts as the page loads, and what it draws with is in modules of their own.
 */
export const ENTRY_FILES = ["src/stdioMain.ts", "view/rangeView.ts"];

const toPosix = (path) => path.split(sep).join("/");

/** Whether `path` (repository-relative, posix) is `target` or inside it (see FORBIDDEN_IMPORTS). */
export function isUnder(path, target) {
  return path === target || path.startsWith(`${target}/`) || path.startsWith(`${target}.`);
}

/** The .ts files (not .d.ts) under `ROOTS` in `root`, repository-relative with `/`, sorted. */
export function listSources(root, roots = ROOTS) {
  const files = [];
  for (const folder of roots) {
    const dir = join(root, folder);
    let names;
    try {
      names = readdirSync(dir, { recursive: true });
    } catch {
      continue;
    }
    for (const name of names) {
      const path = `${folder}/${toPosix(String(name))}`;
      if (path.endsWith(".ts") && !path.endsWith(".d.ts")) files.push(path);
    }
  }
  return files.sort();
}

function parse(file, text) {
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

function lineOf(sourceFile, position) {
  return sourceFile.getLineAndCharacterOfPosition(position).line + 1;
}

/** Lines in a text, as `wc -l` counts them (a last line without a newline counts too). */
export function countLines(text) {
  if (text === "") return 0;
  const newlines = text.split("\n").length - 1;
  return text.endsWith("\n") ? newlines : newlines + 1;
}

// ---------------------------------------------------------------------------------------------------
// Functions

function propertyNameText(name) {
  if (name === undefined) return undefined;
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name)) return name.text;
  if (ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  if (ts.isComputedPropertyName(name)) return `[${name.expression.getText()}]`;
  return name.getText();
}

/** The name a function-like node is known by, or undefined when it has none of its own. */
function ownName(node) {
  const parent = node.parent;
  if (ts.isFunctionDeclaration(node)) return node.name?.text ?? "default";
  if (ts.isConstructorDeclaration(node)) return "constructor";
  if (ts.isMethodDeclaration(node)) return propertyNameText(node.name);
  if (ts.isGetAccessorDeclaration(node)) return `get ${propertyNameText(node.name)}`;
  if (ts.isSetAccessorDeclaration(node)) return `set ${propertyNameText(node.name)}`;
  // An arrow function or function expression takes the name it is assigned to, else its own.
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isFunctionExpression(node) && node.name !== undefined) return node.name.text;
  if ((ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.initializer === node) {
    return propertyNameText(parent.name);
  }
  if (
    ts.isBinaryExpression(parent) &&
    parent.right === node &&
    parent.operatorToken.kind === ts.SyntaxKind.EqualsToken
  ) {
    return parent.left.getText().replace(/\s+/g, "");
  }
  if (ts.isExportAssignment(parent)) return "default";
  if (ts.isReturnStatement(parent) || (ts.isArrowFunction(parent) && parent.body === node))
    return "(returned)";
  // A callback: named after what it is passed to (`then`, `map`, `middy`), so a long one is found too.
  if (ts.isCallExpression(parent) || ts.isNewExpression(parent)) {
    const callee = parent.expression;
    const calleeName = ts.isPropertyAccessExpression(callee)
      ? callee.name.text
      : ts.isIdentifier(callee)
        ? callee.text
        : "call";
    return `(${calleeName} callback)`;
  }
  return "(anonymous)";
}

/** The name a class, or an object literal assigned to a name, gives the functions inside it. */
function containerName(node) {
  if ((ts.isClassDeclaration(node) || ts.isClassExpression(node)) && node.name !== undefined) {
    return node.name.text;
  }
  if (ts.isClassDeclaration(node)) return "default";
  const parent = node.parent;
  if (ts.isClassExpression(node) || ts.isObjectLiteralExpression(node)) {
    if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
    if (ts.isPropertyAssignment(parent)) return propertyNameText(parent.name);
    if (ts.isClassExpression(node)) return "(class)";
  }
  return undefined;
}

/**
 * Every function with a body in `text`: declarations, methods, accessors, constructors, arrow functions
 * and function expressions. Nested ones are named inside their function or class (`serveStdio.reportFault`,
 * `AnswerScanner.scan`); a second of the same name in a file gets `#2`. `lines` runs from the line the
 * function starts on (its first keyword or parameter, not its doc comment) to the line it ends on.
 */
export function measureFunctions(file, text) {
  const sourceFile = parse(file, text);
  const found = [];
  const seen = new Map();
  const visit = (node, scope) => {
    let inner = scope;
    if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
      const name = [...scope, ownName(node)].join(".");
      const count = (seen.get(name) ?? 0) + 1;
      seen.set(name, count);
      const start = lineOf(sourceFile, node.getStart(sourceFile));
      const end = lineOf(sourceFile, node.getEnd());
      found.push({
        file,
        name: count === 1 ? name : `${name}#${count}`,
        line: start,
        lines: end - start + 1,
      });
      inner = [...scope, ownName(node)];
    } else {
      const container = containerName(node);
      if (container !== undefined) inner = [...scope, container];
    }
    ts.forEachChild(node, (child) => visit(child, inner));
  };
  ts.forEachChild(sourceFile, (child) => visit(child, []));
  return found;
}

// ---------------------------------------------------------------------------------------------------
// Imports

/**
 * The relative imports of `text`: `static` (import, export … from, side-effect import), `type`
 * (`import type`, `export type … from`, `import("…")` in a type) and `dynamic` (`await import("…")`).
 * `import { type A }` is static: under verbatimModuleSyntax it stays an import of the module.
 */
export function importsOf(file, text) {
  const sourceFile = parse(file, text);
  const found = [];
  const add = (specifier, kind, node) => {
    if (!ts.isStringLiteralLike(specifier)) return;
    if (!specifier.text.startsWith(".")) return;
    found.push({ specifier: specifier.text, kind, line: lineOf(sourceFile, node.getStart(sourceFile)) });
  };
  const visit = (node) => {
    if (ts.isImportDeclaration(node)) {
      add(node.moduleSpecifier, node.importClause?.isTypeOnly ? "type" : "static", node);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined) {
      add(node.moduleSpecifier, node.isTypeOnly ? "type" : "static", node);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, node.isTypeOnly ? "type" : "static", node);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      if (node.arguments[0] !== undefined) add(node.arguments[0], "dynamic", node);
    } else if (ts.isImportTypeNode(node)) {
      const argument = node.argument;
      if (ts.isLiteralTypeNode(argument)) add(argument.literal, "type", node);
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return found;
}

function isFile(path) {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The repository-relative file a relative import of `from` names: `./x.js` is ./x.ts when that exists
 * (NodeNext), an extensionless one ./x.ts or ./x/index.ts; other files (JSON) as they are.
 */
export function resolveImport(root, from, specifier) {
  const target = toPosix(relative(root, resolve(root, dirname(from), specifier)));
  const candidates = [];
  const js = target.match(/^(.*)\.(m|c)?js$/);
  if (js) candidates.push(`${js[1]}.${js[2] === undefined ? "" : js[2]}ts`);
  candidates.push(target, `${target}.ts`, `${target}/index.ts`);
  return candidates.find((candidate) => isFile(join(root, candidate))) ?? target;
}

// ---------------------------------------------------------------------------------------------------
// Cycles

/** Strongly connected components (Tarjan) of `nodes` under `next(node)`, each with more than one node. */
function components(nodes, next) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  let counter = 0;
  const connect = (node) => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const to of next(node)) {
      if (!index.has(to)) {
        connect(to);
        low.set(node, Math.min(low.get(node), low.get(to)));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node), index.get(to)));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || next(node).includes(node)) found.push(component.sort());
    }
  };
  for (const node of nodes) if (!index.has(node)) connect(node);
  return found;
}

/** One way round a cycle inside `members`, from its first file back to it: [a, b, …, a]. */
function pathRound(members, next) {
  const inside = new Set(members);
  const start = members[0];
  const previous = new Map();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const to of next(node)) {
      if (!inside.has(to)) continue;
      if (to === start) {
        const path = [start];
        for (let at = node; at !== start; at = previous.get(at)) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!previous.has(to)) {
        previous.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start, start];
}

/**
 * The import cycles among `edges` (each { from, to, kind }). Every import counts, `import type` too:
 * a cycle of types alone does nothing at run time, but it ties two modules together all the same, and
 * shared types belong in a module of their own. `kind` says what the cycle is made of: `runtime` (static
 * imports alone close it), `dynamic` (it needs an `import()`) or `types` (it needs an `import type`).
 */
export function findCycles(edges) {
  const graph = (kinds) => {
    const next = new Map();
    for (const edge of edges) {
      if (!kinds.includes(edge.kind)) continue;
      if (!next.has(edge.from)) next.set(edge.from, []);
      const list = next.get(edge.from);
      if (!list.includes(edge.to)) list.push(edge.to);
    }
    for (const list of next.values()) list.sort();
    return (node) => next.get(node) ?? [];
  };
  const all = graph(["static", "dynamic", "type"]);
  const nodes = [...new Set(edges.flatMap((edge) => [edge.from, edge.to]))].sort();
  const closes = (kinds, members) => {
    const inside = new Set(members);
    const next = graph(kinds);
    return components(members, (node) => next(node).filter((to) => inside.has(to))).length > 0;
  };
  return components(nodes, all)
    .map((files) => ({
      files,
      path: pathRound(files, all),
      kind: closes(["static"], files)
        ? "runtime"
        : closes(["static", "dynamic"], files)
          ? "dynamic"
          : "types",
    }))
    .sort((a, b) => a.files.join().localeCompare(b.files.join()));
}

// ---------------------------------------------------------------------------------------------------
// Forbidden imports

/** The edges FORBIDDEN_IMPORTS rules out, each with the rule's reason. */
export function forbiddenImports(edges, rules = FORBIDDEN_IMPORTS) {
  const found = [];
  for (const edge of edges) {
    for (const rule of rules) {
      if (!isUnder(edge.from, rule.from)) continue;
      const target = rule.to.find((to) => isUnder(edge.to, to));
      if (target !== undefined) found.push({ ...edge, rule: `${rule.from} ↛ ${target}`, why: rule.why });
    }
  }
  return found;
}

// ---------------------------------------------------------------------------------------------------
// Modules that run code on import

/**
 * The top-level statements of `text` that do something when the module is imported: a call, `new`, or
 * `await` as a statement of its own, at the top or in a top-level `if`, loop, block or `try` (not inside
 * a declaration: `const x = f()` computes a value). A method call on a module-level variable of the file
 * (`TABLE.fill(0)`, `NAMES.add(x)`) fills the module's own tables and is not counted.
 */
export function sideEffectsOf(file, text) {
  const sourceFile = parse(file, text);
  const ownVariables = new Set();
  for (const statement of sourceFile.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      const initializer = declaration.initializer;
      const isFunction =
        initializer !== undefined &&
        (ts.isArrowFunction(initializer) || ts.isFunctionExpression(initializer));
      if (ts.isIdentifier(declaration.name) && !isFunction) ownVariables.add(declaration.name.text);
    }
  }
  const fillsOwnTable = (call) => {
    let callee = call.expression;
    if (!ts.isPropertyAccessExpression(callee) && !ts.isElementAccessExpression(callee)) return false;
    callee = callee.expression;
    return ts.isIdentifier(callee) && ownVariables.has(callee.text);
  };
  const found = [];
  const check = (statement) => {
    if (ts.isExpressionStatement(statement)) {
      let expression = statement.expression;
      while (ts.isParenthesizedExpression(expression) || ts.isVoidExpression(expression)) {
        expression = expression.expression;
      }
      const runs =
        ts.isAwaitExpression(expression) ||
        ts.isNewExpression(expression) ||
        ts.isTaggedTemplateExpression(expression) ||
        (ts.isCallExpression(expression) && !fillsOwnTable(expression));
      if (runs) {
        found.push({
          file,
          line: lineOf(sourceFile, statement.getStart(sourceFile)),
          text: statement.getText(sourceFile).replace(/\s+/g, " ").slice(0, 60),
        });
      }
      return;
    }
    if (ts.isForOfStatement(statement) && statement.awaitModifier !== undefined) {
      found.push({ file, line: lineOf(sourceFile, statement.getStart(sourceFile)), text: "for await (…)" });
    }
    if (
      ts.isIfStatement(statement) ||
      ts.isBlock(statement) ||
      ts.isTryStatement(statement) ||
      ts.isLabeledStatement(statement) ||
      ts.isIterationStatement(statement, false)
    ) {
      ts.forEachChild(statement, (child) => {
        if (ts.isStatement(child) || ts.isBlock(child)) check(child);
        else if (ts.isCatchClause(child)) check(child.block);
      });
    }
  };
  for (const statement of sourceFile.statements) check(statement);
  return found;
}

// ---------------------------------------------------------------------------------------------------
// The whole analysis

/** Measures `root` (a repository: src/, tools/). */
export function analyze(root, options = {}) {
  const maxFunctionLines = options.maxFunctionLines ?? MAX_FUNCTION_LINES;
  const exempt = options.exempt ?? EXEMPT_FUNCTIONS;
  const entries = options.entries ?? ENTRY_FILES;
  const files = listSources(root, options.roots ?? ROOTS);
  const known = new Set(files);
  const functions = [];
  const edges = [];
  const selfStarting = [];
  let appLines;
  for (const file of files) {
    const text = readFileSync(join(root, file), "utf8");
    if (file === APP_FILE) appLines = countLines(text);
    functions.push(...measureFunctions(file, text));
    for (const found of importsOf(file, text)) {
      edges.push({
        from: file,
        to: resolveImport(root, file, found.specifier),
        kind: found.kind,
        line: found.line,
      });
    }
    if (!entries.includes(file)) selfStarting.push(...sideEffectsOf(file, text));
  }
  const exemption = (fn) => exempt.find((entry) => entry.file === fn.file && entry.name === fn.name);
  const longFunctions = functions
    .filter((fn) => fn.lines > maxFunctionLines)
    .map((fn) => ({ ...fn, exempt: exemption(fn)?.why }))
    .sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file) || a.name.localeCompare(b.name));
  const ourEdges = edges.filter((edge) => known.has(edge.to) || !edge.to.endsWith(".ts"));
  return {
    files,
    functions,
    maxFunctionLines,
    longFunctions,
    missingExemptions: exempt.filter((entry) => !functions.some((fn) => exemption(fn) === entry)),
    appLines,
    appTargetLines: options.appTargetLines ?? APP_TARGET_LINES,
    edges: ourEdges,
    cycles: findCycles(ourEdges.filter((edge) => known.has(edge.to))),
    forbidden: forbiddenImports(ourEdges, options.forbidden ?? FORBIDDEN_IMPORTS),
    selfStarting,
    entries,
  };
}

// ---------------------------------------------------------------------------------------------------
// Baseline

/** The violations of `report`, as the baseline file lists them. */
export function toBaseline(report) {
  const byFileName = (a, b) => a.file.localeCompare(b.file) || a.name.localeCompare(b.name);
  const edgeKeys = [...new Set(report.forbidden.map((edge) => `${edge.from} -> ${edge.to}`))].sort();
  return {
    appLines:
      report.appLines !== undefined && report.appLines > report.appTargetLines ? report.appLines : null,
    functions: report.longFunctions
      .filter((fn) => fn.exempt === undefined)
      .map(({ file, name, lines }) => ({ file, name, lines }))
      .sort(byFileName),
    cycles: report.cycles.map((cycle) => cycle.files),
    forbiddenImports: edgeKeys.map((key) => {
      const [from, to] = key.split(" -> ");
      return { from, to };
    }),
    selfStarting: [...new Set(report.selfStarting.map((found) => found.file))].sort(),
  };
}

/**
 * `report` against `baseline`: `failures` (new violations, and listed ones that got worse) fail the
 * check; `fixed` (listed, gone) and `improved` (listed, smaller) are told.
 */
export function compare(report, baseline) {
  const base = {
    appLines: null,
    functions: [],
    cycles: [],
    forbiddenImports: [],
    selfStarting: [],
    ...baseline,
  };
  const now = toBaseline(report);
  const failures = [];
  const fixed = [];
  const improved = [];

  if (now.appLines !== null) {
    if (base.appLines === null || base.appLines === undefined) {
      failures.push(`${APP_FILE} is ${now.appLines} lines (target ≤ ${report.appTargetLines})`);
    } else if (now.appLines > base.appLines) {
      failures.push(`${APP_FILE} grew to ${now.appLines} lines (baseline ${base.appLines})`);
    } else if (now.appLines < base.appLines) {
      improved.push(`${APP_FILE}: ${now.appLines} lines (baseline ${base.appLines})`);
    }
  } else if (base.appLines !== null && base.appLines !== undefined) {
    fixed.push(`${APP_FILE} length (now ${report.appLines ?? "absent"}, target ≤ ${report.appTargetLines})`);
  }

  const fnKey = (fn) => `${fn.file} ${fn.name}`;
  const baseFunctions = new Map(base.functions.map((fn) => [fnKey(fn), fn]));
  const nowFunctions = new Map(now.functions.map((fn) => [fnKey(fn), fn]));
  for (const fn of now.functions) {
    const listed = baseFunctions.get(fnKey(fn));
    if (listed === undefined) {
      failures.push(`function ${fn.name} (${fn.file}) is ${fn.lines} lines (max ${report.maxFunctionLines})`);
    } else if (fn.lines > listed.lines) {
      failures.push(`function ${fn.name} (${fn.file}) grew to ${fn.lines} lines (baseline ${listed.lines})`);
    } else if (fn.lines < listed.lines) {
      improved.push(`function ${fn.name} (${fn.file}): ${fn.lines} lines (baseline ${listed.lines})`);
    }
  }
  for (const fn of base.functions) {
    if (!nowFunctions.has(fnKey(fn)))
      fixed.push(`function ${fn.name} (${fn.file}) over ${report.maxFunctionLines} lines`);
  }

  const compareSets = (label, nowKeys, baseKeys) => {
    for (const key of nowKeys) if (!baseKeys.includes(key)) failures.push(`${label} ${key}`);
    for (const key of baseKeys) if (!nowKeys.includes(key)) fixed.push(`${label} ${key}`);
  };
  compareSets(
    "import cycle",
    now.cycles.map((files) => files.join(" ⇄ ")),
    base.cycles.map((files) => [...files].sort().join(" ⇄ ")),
  );
  compareSets(
    "forbidden import",
    now.forbiddenImports.map((edge) => `${edge.from} → ${edge.to}`),
    base.forbiddenImports.map((edge) => `${edge.from} → ${edge.to}`),
  );
  compareSets("module runs code on import:", now.selfStarting, base.selfStarting);
  return { failures, fixed, improved };
}

const LINE_WIDTH = 110; // biome.json's

/**
 * JSON as Biome formats it: an array or object on one line when it fits in LINE_WIDTH (counting what
 * follows it on the line), else one element a line. The outermost object is always expanded.
 */
function printJson(value, indent, column, tail, top = false) {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  const entries = Array.isArray(value)
    ? value.map((item) => ["", item])
    : Object.entries(value).map(([key, item]) => [`${JSON.stringify(key)}: `, item]);
  const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{ ", " }"];
  if (entries.length === 0) return Array.isArray(value) ? "[]" : "{}";
  if (!top) {
    const flat = `${open}${entries.map(([key, item]) => key + printJson(item, 0, 0, 0)).join(", ")}${close}`;
    if (!flat.includes("\n") && column + flat.length + tail <= LINE_WIDTH) return flat;
  }
  const inner = indent + 2;
  const lines = entries.map(([key, item], index) => {
    const comma = index < entries.length - 1 ? 1 : 0;
    const printed = printJson(item, inner, inner + key.length, comma);
    return `${" ".repeat(inner)}${key}${printed}${comma ? "," : ""}`;
  });
  return `${open.trim()}\n${lines.join("\n")}\n${" ".repeat(indent)}${close.trim()}`;
}

/** The baseline file's text, as the formatter (Biome) leaves it. */
export function formatBaseline(baseline) {
  const file = {
    $comment:
      "Structure violations accepted for now (scripts/structure.mjs). Remove what is fixed (npm run structure -- --write-baseline); never add by hand.",
    ...baseline,
  };
  return `${printJson(file, 0, 0, 0, true)}\n`;
}

// ---------------------------------------------------------------------------------------------------
// The table

function table(header, rows) {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => String(row[column]).length)),
  );
  const line = (cells) =>
    cells
      .map((cell, column) =>
        typeof cell === "number"
          ? String(cell).padStart(widths[column])
          : String(cell).padEnd(widths[column]),
      )
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...rows.map(line)]
    .map((text) => `  ${text}`)
    .join("\n");
}

/** The readable report: every measure, then what the baseline comparison found. */
export function formatReport(report, comparison, longest = 10) {
  const out = [];
  const byKind = (kind) => report.edges.filter((edge) => edge.kind === kind).length;
  const inTools = report.files.filter((file) => file.startsWith("tools/")).length;
  out.push(
    `structure: ${report.files.length} files (src/ ${report.files.length - inTools}, tools/ ${inTools}), ` +
      `${report.functions.length} functions, ${report.edges.length} relative imports ` +
      `(${byKind("static")} static, ${byKind("type")} type-only, ${byKind("dynamic")} dynamic)`,
  );

  const status = (fn) =>
    fn.exempt !== undefined ? `exempt: ${fn.exempt}` : fn.lines > report.maxFunctionLines ? "over" : "";
  out.push("", `Longest functions (max ${report.maxFunctionLines} lines):`);
  const sorted = [...report.functions].sort((a, b) => b.lines - a.lines || a.name.localeCompare(b.name));
  const shown = sorted.slice(0, Math.max(longest, report.longFunctions.length));
  const exemptOf = new Map(report.longFunctions.map((fn) => [`${fn.file} ${fn.name}`, fn]));
  out.push(
    table(
      ["lines", "function", "file:line", "status"],
      shown.map((fn) => [
        fn.lines,
        fn.name,
        `${fn.file}:${fn.line}`,
        status(exemptOf.get(`${fn.file} ${fn.name}`) ?? fn),
      ]),
    ),
  );
  const counted = report.longFunctions.filter((fn) => fn.exempt === undefined).length;
  out.push(
    `  ${counted} over ${report.maxFunctionLines} lines, ${report.longFunctions.length - counted} exempt`,
  );
  for (const entry of report.missingExemptions) {
    out.push(`  note: exempt function ${entry.name} (${entry.file}) not found: update EXEMPT_FUNCTIONS`);
  }

  out.push(
    "",
    `${APP_FILE}: ${report.appLines ?? "absent"} lines, target ≤ ${report.appTargetLines}` +
      (report.appLines !== undefined && report.appLines > report.appTargetLines
        ? ` (${report.appLines - report.appTargetLines} over)`
        : " (met)"),
  );

  out.push("", `Import cycles: ${report.cycles.length}`);
  for (const cycle of report.cycles) {
    out.push(`  [${cycle.kind}] ${cycle.path.join(" → ")}`);
    if (cycle.files.length > cycle.path.length - 1) out.push(`    (all of: ${cycle.files.join(", ")})`);
  }

  out.push("", `Forbidden imports (DESIGN.md §2): ${report.forbidden.length}`);
  if (report.forbidden.length > 0) {
    out.push(
      table(
        ["import", "rule", "kind"],
        report.forbidden.map((edge) => [`${edge.from}:${edge.line} → ${edge.to}`, edge.rule, edge.kind]),
      ),
    );
  }

  out.push(
    "",
    `Modules that run code on import: ${report.selfStarting.length} (entry files, allowed: ${report.entries.join(", ") || "none"})`,
  );
  for (const found of report.selfStarting) out.push(`  ${found.file}:${found.line}  ${found.text}`);

  if (comparison !== undefined) {
    out.push("");
    for (const text of comparison.improved)
      out.push(`improved (lower the baseline with --write-baseline): ${text}`);
    for (const text of comparison.fixed) out.push(`fixed, remove from baseline: ${text}`);
    for (const text of comparison.failures) out.push(`NEW: ${text}`);
    out.push(
      comparison.failures.length === 0
        ? `structure: ok (${toBaselineCount(report)} violations, all in ${BASELINE_FILE})`
        : `structure: ${comparison.failures.length} violation(s) not in ${BASELINE_FILE}: fix them (or, for an accepted one, npm run structure -- --write-baseline)`,
    );
  }
  return out.join("\n");
}

function toBaselineCount(report) {
  const baseline = toBaseline(report);
  return (
    (baseline.appLines === null ? 0 : 1) +
    baseline.functions.length +
    baseline.cycles.length +
    baseline.forbiddenImports.length +
    baseline.selfStarting.length
  );
}

/** Runs the check on `root`; returns the exit code. */
export function main(argv = process.argv.slice(2), root = fileURLToPath(new URL("..", import.meta.url))) {
  const report = analyze(root);
  const baselinePath = join(root, BASELINE_FILE);
  if (argv.includes("--write-baseline")) {
    mkdirSync(dirname(baselinePath), { recursive: true });
    writeFileSync(baselinePath, formatBaseline(toBaseline(report)));
    console.log(formatReport(report));
    console.log(`\nwrote ${BASELINE_FILE} (${toBaselineCount(report)} violations)`);
    return 0;
  }
  let baseline = {};
  try {
    baseline = JSON.parse(readFileSync(baselinePath, "utf8"));
  } catch (error) {
    if (error.code !== "ENOENT") throw error;
  }
  const comparison = compare(report, baseline);
  console.log(formatReport(report, comparison));
  return comparison.failures.length > 0 ? 1 : 0;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main();
}
