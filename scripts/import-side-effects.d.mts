// Types of scripts/import-side-effects.mjs, for its test (test/unit/importSideEffects.test.ts).

export interface SideEffect {
  file: string;
  /** The line the statement starts on (1-based). */
  line: number;
  text: string;
}

export const ROOTS: string[];
export const ENTRY_NAMES: string[];
export function sideEffectsOf(file: string, text: string): SideEffect[];
export function findSideEffects(root: string, entryNames?: string[]): SideEffect[];
