/**
 * Rows that differ in one label cell only, collapsed into one row whose cell in that column lists their
 * values: 20 series alike but for their pod are one row. One column is collapsed for the whole table, the
 * one that leaves the fewest rows (ties: the first column), so that a reader knows where to look.
 */

/** A table row before collapsing: its label cells, then its other cells. */
export interface PlainRow {
  labels: unknown[];
  numbers: unknown[];
}

/** A written row, and how many series it stands for. */
export interface CollapsedRow {
  cells: unknown[];
  members: number;
}

/**
 * The rows collapsed on the best label column, each where its first member was (the order is kept).
 * Bounded memory: a key per row for each label column tried.
 */
export function collapseRows(rows: readonly PlainRow[], labelColumns: number): CollapsedRow[] {
  let best: { column: number; groups: Map<string, number[]> } | undefined;
  for (let column = 0; column < labelColumns; column++) {
    const groups = new Map<string, number[]>();
    for (const [index, row] of rows.entries()) {
      const key = JSON.stringify([row.labels.filter((_, at) => at !== column), row.numbers]);
      const members = groups.get(key);
      if (members === undefined) groups.set(key, [index]);
      else members.push(index);
    }
    if (groups.size < (best?.groups.size ?? rows.length)) best = { column, groups };
  }
  if (best === undefined) return rows.map((row) => ({ cells: [...row.labels, ...row.numbers], members: 1 }));
  const { column, groups } = best;
  const collapsed: CollapsedRow[] = [];
  // A Map keeps its keys in first-insertion order: each group comes where its first member ranked.
  for (const members of groups.values()) {
    const first = rows[members[0] as number] as PlainRow;
    const labels = [...first.labels];
    if (members.length > 1) labels[column] = members.map((index) => rows[index]?.labels[column]);
    collapsed.push({ cells: [...labels, ...first.numbers], members: members.length });
  }
  return collapsed;
}
