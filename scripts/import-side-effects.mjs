// What Biome (biome.json holds the rest of the structure rules: function length, import cycles, the
// folder import rules) cannot say: a module of src/, tools/ or view/ that runs code when imported (a
// top-level call, `new`, `await` or `for await`, like `await serveStdio()`). Such a module cannot be
// imported by a test or the bench without starting something. Entry files start on purpose, each only
// what the module it imports exports. Run by CI as `npm run structure`; exit 1 on a finding.
import { readdirSync, readFileSync } from "node:fs";
import { basename, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const ROOTS = ["src", "tools", "view"];
/** Entry files by name (wherever the folder moves lay them): the stdio entry and the view's page script. */
export const ENTRY_NAMES = ["stdioMain.ts", "rangeView.ts"];

const STATEMENTS_INSIDE = (s) =>
  ts.isIfStatement(s) ||
  ts.isBlock(s) ||
  ts.isTryStatement(s) ||
  ts.isLabeledStatement(s) ||
  ts.isIterationStatement(s, false);

/**
 * The top-level statements of `text` that run something on import: a call, `new`, or `await` as a
 * statement of its own, at the top or in a top-level `if`, loop, block or `try` (`const x = f()` computes
 * a value and is not counted). A method call on a module-level variable (`TABLE.fill(0)`) fills the
 * module's own table and is not counted either.
 */
export function sideEffectsOf(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const own = new Set();
  for (const statement of source.statements.filter(ts.isVariableStatement)) {
    for (const { name, initializer } of statement.declarationList.declarations) {
      const isFunction =
        initializer && (ts.isArrowFunction(initializer) || ts.isFunctionExpression(initializer));
      if (ts.isIdentifier(name) && !isFunction) own.add(name.text);
    }
  }
  const fillsOwnTable = (call) => {
    const callee = call.expression;
    if (!ts.isPropertyAccessExpression(callee) && !ts.isElementAccessExpression(callee)) return false;
    return ts.isIdentifier(callee.expression) && own.has(callee.expression.text);
  };
  const found = [];
  const report = (node, what) =>
    found.push({
      file,
      line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
      text: what,
    });
  const check = (statement) => {
    if (ts.isExpressionStatement(statement)) {
      let e = statement.expression;
      while (ts.isParenthesizedExpression(e) || ts.isVoidExpression(e)) e = e.expression;
      const runs =
        ts.isAwaitExpression(e) ||
        ts.isNewExpression(e) ||
        ts.isTaggedTemplateExpression(e) ||
        (ts.isCallExpression(e) && !fillsOwnTable(e));
      if (runs) report(statement, statement.getText(source).replace(/\s+/g, " ").slice(0, 60));
      return;
    }
    if (ts.isForOfStatement(statement) && statement.awaitModifier) report(statement, "for await (…)");
    if (!STATEMENTS_INSIDE(statement)) return;
    ts.forEachChild(statement, (child) => {
      if (ts.isStatement(child) || ts.isBlock(child)) check(child);
      else if (ts.isCatchClause(child)) check(child.block);
    });
  };
  for (const statement of source.statements) check(statement);
  return found;
}

/** Every finding under `root`'s ROOTS (.ts, not .d.ts), entry files left out. */
export function findSideEffects(root, entryNames = ENTRY_NAMES) {
  const found = [];
  for (const folder of ROOTS) {
    let names = [];
    try {
      names = readdirSync(join(root, folder), { recursive: true }).map(String);
    } catch {}
    for (const name of names.sort()) {
      const file = `${folder}/${name.split(sep).join("/")}`;
      if (!file.endsWith(".ts") || file.endsWith(".d.ts") || entryNames.includes(basename(file))) continue;
      found.push(...sideEffectsOf(file, readFileSync(join(root, file), "utf8")));
    }
  }
  return found;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const found = findSideEffects(fileURLToPath(new URL("..", import.meta.url)));
  for (const { file, line, text } of found) console.log(`${file}:${line}  runs on import: ${text}`);
  console.log(
    found.length === 0
      ? `structure: no module runs code on import (entry files: ${ENTRY_NAMES.join(", ")}); the other rules are in biome.json (npm run lint)`
      : `structure: ${found.length} module statement(s) run on import: move them into a function the entry file calls`,
  );
  process.exitCode = found.length === 0 ? 0 : 1;
}
