// Part B of issue 38 writes this module (findChange); until then it holds only the shape a table reads.

/** Where a series changed level, and how (times in Unix seconds). */
export interface ChangePoint {
  at: number;
  before: number;
  after: number;
  endedAt?: number;
  score: number;
}
