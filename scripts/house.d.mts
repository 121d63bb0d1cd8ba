// Types of scripts/house.mjs, for its test (test/unit/house.test.ts).

export interface MeasuredFunction {
  file: string;
  name: string;
  line: number;
  lines: number;
}

export interface MeasuredFile {
  file: string;
  lines: number;
  generated: boolean;
}

export interface HouseReport {
  readmeLines: number | undefined;
  architectureLines: number | undefined;
  loose: string[];
  longestFiles: MeasuredFile[];
  overLimit: MeasuredFile[];
  longestFunctions: MeasuredFunction[];
  functionCount: number;
  cycles: string[][];
}

export const LIMITS: { readmeLines: number; looseFiles: number; fileLines: number; cycles: number };
export const LONG_FILE_EXEMPT: string[];
export function functionsOf(file: string, text: string): MeasuredFunction[];
export function cyclesOf(graph: Map<string, string[]>): string[][];
export function measure(root: string): HouseReport;
export function failures(report: HouseReport): string[];
export function format(report: HouseReport, validations?: string): string;
/** Prints the report for the command line `argv` (`--root=`, `--check`, `--validations=`, `--cold-start[=<bench case>]`); returns the exit code. */
export function main(argv: string[]): number;
/** The bench's output as rows (a figure's JSON line as `id: ours … vs baseline …`; other lines as they are). */
export function benchRows(stdout: string): string;
