// Types of scripts/structure.mjs, for the tests that import its analysis (test/unit/structure.test.ts).

export interface ExemptFunction {
  file: string;
  name: string;
  why: string;
}

export interface ForbiddenRule {
  from: string;
  to: string[];
  why: string;
}

export type ImportKind = "static" | "type" | "dynamic";

export interface MeasuredFunction {
  file: string;
  name: string;
  /** The line it starts on (1-based). */
  line: number;
  lines: number;
}

export interface LongFunction extends MeasuredFunction {
  /** Why it is allowed, when it is in EXEMPT_FUNCTIONS. */
  exempt: string | undefined;
}

export interface Import {
  specifier: string;
  kind: ImportKind;
  line: number;
}

export interface Edge {
  from: string;
  to: string;
  kind: ImportKind;
  line: number;
}

export interface Cycle {
  /** Every module of the cycle (a strongly connected component), sorted. */
  files: string[];
  /** One way round it, back to its first file. */
  path: string[];
  /** What closes it: static imports alone, an `import()`, or an `import type`. */
  kind: "runtime" | "dynamic" | "types";
}

export interface ForbiddenImport extends Edge {
  rule: string;
  why: string;
}

export interface SideEffect {
  file: string;
  line: number;
  text: string;
}

export interface Report {
  files: string[];
  functions: MeasuredFunction[];
  maxFunctionLines: number;
  longFunctions: LongFunction[];
  missingExemptions: ExemptFunction[];
  appLines: number | undefined;
  appTargetLines: number;
  edges: Edge[];
  cycles: Cycle[];
  forbidden: ForbiddenImport[];
  selfStarting: SideEffect[];
  entries: string[];
}

export interface AnalyzeOptions {
  roots?: string[];
  maxFunctionLines?: number;
  appTargetLines?: number;
  exempt?: ExemptFunction[];
  entries?: string[];
  forbidden?: ForbiddenRule[];
}

export interface Baseline {
  appLines: number | null;
  functions: { file: string; name: string; lines: number }[];
  cycles: string[][];
  forbiddenImports: { from: string; to: string }[];
  selfStarting: string[];
}

export interface Comparison {
  failures: string[];
  fixed: string[];
  improved: string[];
}

export const ROOTS: string[];
export const MAX_FUNCTION_LINES: number;
export const APP_FILE: string;
export const APP_TARGET_LINES: number;
export const BASELINE_FILE: string;
export const EXEMPT_FUNCTIONS: ExemptFunction[];
export const ENTRY_FILES: string[];
export const FORBIDDEN_IMPORTS: ForbiddenRule[];

export function isUnder(path: string, target: string): boolean;
export function listSources(root: string, roots?: string[]): string[];
export function countLines(text: string): number;
export function measureFunctions(file: string, text: string): MeasuredFunction[];
export function importsOf(file: string, text: string): Import[];
export function resolveImport(root: string, from: string, specifier: string): string;
export function findCycles(edges: readonly Edge[]): Cycle[];
export function forbiddenImports(edges: readonly Edge[], rules?: ForbiddenRule[]): ForbiddenImport[];
export function sideEffectsOf(file: string, text: string): SideEffect[];
export function analyze(root: string, options?: AnalyzeOptions): Report;
export function toBaseline(report: Report): Baseline;
export function compare(report: Report, baseline: Partial<Baseline>): Comparison;
export function formatBaseline(baseline: Baseline): string;
export function formatReport(report: Report, comparison?: Comparison, longest?: number): string;
export function main(argv?: string[], root?: string): number;
