import type { Budget, Cost } from "./fit.js";

/** How a selection orders its elements: the one kept first has the smaller key under `compare`. */
export interface Ranking<T, K> {
  keyOf(value: T): K;
  /** Negative when `a` ranks before `b`. Equal keys keep the order of arrival. */
  compare(a: K, b: K): number;
}

export interface SelectionLimits {
  /** What the kept elements may add up to. */
  budget: Budget;
  /** Most elements kept (a caller's `limit`); undefined for no limit. */
  maxCount?: number | undefined;
}

interface Candidate<T, K> {
  value: T;
  cost: Cost;
  arrival: number;
  key: K;
}

/** What a selection kept of everything offered to it. */
export interface Selected<T> {
  /** In order of arrival when nothing was dropped, else in rank order (best first); with their costs. */
  kept: Array<{ value: T; cost: Cost }>;
  /** Elements offered. */
  offered: number;
}

/**
 * Keeps, of a stream of elements too large to hold, the longest run of best-ranked ones that fits the
 * limits: exactly the first elements a sort by rank would give, found without holding the others.
 * Nothing is ranked while everything fits, so an answer within its budget costs one push per element.
 *
 * Once something must go, the kept elements sit in a heap with the worst on top. A dropped element
 * raises the bar: anything ranked below it can never belong to the run, so it is dropped on arrival.
 *
 * @example
 * ```ts
 * const byName = { keyOf: (n: string) => n, compare: (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0) };
 * const names = new Selection({ budget: { tokens: 50, bytes: 100 } }, byName);
 * for (const name of stream) names.offer(name, { tokens: 3, bytes: name.length + 3 });
 * names.result().kept; // the alphabetically first names (with their costs) that fit 50 tokens and 100 bytes
 * ```
 */
export class Selection<T, K> {
  private readonly arrivals: T[] = [];
  private readonly arrivalCosts: Cost[] = [];
  private heap: Candidate<T, K>[] | undefined;
  private bar: Candidate<T, K> | undefined;
  private keptTokens = 0;
  private keptBytes = 0;
  private offered = 0;

  constructor(
    private readonly limits: SelectionLimits,
    private readonly ranking: Ranking<T, K>,
  ) {}

  offer(value: T, cost: Cost): void {
    const arrival = this.offered++;
    this.keptTokens += cost.tokens;
    this.keptBytes += cost.bytes;
    if (this.heap === undefined) {
      this.arrivals.push(value);
      this.arrivalCosts.push(cost);
      if (this.fits()) return;
      this.heap = this.arrivals.map((kept, index) =>
        this.candidate(kept, this.arrivalCosts[index] as Cost, index),
      );
      this.arrivals.length = 0;
      this.arrivalCosts.length = 0;
      for (let i = (this.heap.length >> 1) - 1; i >= 0; i--) this.siftDown(i);
      this.evictUntilFits();
      return;
    }
    const candidate = this.candidate(value, cost, arrival);
    if (this.bar !== undefined && this.before(this.bar, candidate)) {
      this.keptTokens -= cost.tokens;
      this.keptBytes -= cost.bytes;
      return;
    }
    this.heap.push(candidate);
    this.siftUp(this.heap.length - 1);
    this.evictUntilFits();
  }

  result(): Selected<T> {
    const kept =
      this.heap === undefined
        ? this.arrivals.map((value, index) => ({ value, cost: this.arrivalCosts[index] as Cost }))
        : [...this.heap]
            .sort((a, b) => (this.before(a, b) ? -1 : 1))
            .map(({ value, cost }) => ({ value, cost }));
    return { kept, offered: this.offered };
  }

  private count(): number {
    return this.heap?.length ?? this.arrivals.length;
  }

  private fits(): boolean {
    const { budget, maxCount } = this.limits;
    return (
      this.keptTokens <= budget.tokens &&
      this.keptBytes <= budget.bytes &&
      (maxCount === undefined || this.count() <= maxCount)
    );
  }

  private evictUntilFits(): void {
    const heap = this.heap;
    if (heap === undefined) return;
    while (heap.length > 0 && !this.fits()) {
      const worst = heap[0] as Candidate<T, K>;
      const last = heap.pop() as Candidate<T, K>;
      if (heap.length > 0) {
        heap[0] = last;
        this.siftDown(0);
      }
      this.keptTokens -= worst.cost.tokens;
      this.keptBytes -= worst.cost.bytes;
      // The heap's worst still ranks above every element dropped before it.
      this.bar = worst;
    }
  }

  private candidate(value: T, cost: Cost, arrival: number): Candidate<T, K> {
    return { value, cost, arrival, key: this.ranking.keyOf(value) };
  }

  /** True when `a` ranks before `b`. */
  private before(a: Candidate<T, K>, b: Candidate<T, K>): boolean {
    const order = this.ranking.compare(a.key, b.key);
    return order < 0 || (order === 0 && a.arrival < b.arrival);
  }

  // A heap whose top is the worst-ranked candidate.
  private siftUp(index: number): void {
    const heap = this.heap as Candidate<T, K>[];
    let child = index;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if (!this.before(heap[parent] as Candidate<T, K>, heap[child] as Candidate<T, K>)) return;
      this.swap(parent, child);
      child = parent;
    }
  }

  private siftDown(index: number): void {
    const heap = this.heap as Candidate<T, K>[];
    let parent = index;
    for (;;) {
      const left = 2 * parent + 1;
      const right = left + 1;
      let worst = parent;
      if (left < heap.length && this.before(heap[worst] as Candidate<T, K>, heap[left] as Candidate<T, K>)) {
        worst = left;
      }
      if (
        right < heap.length &&
        this.before(heap[worst] as Candidate<T, K>, heap[right] as Candidate<T, K>)
      ) {
        worst = right;
      }
      if (worst === parent) return;
      this.swap(parent, worst);
      parent = worst;
    }
  }

  private swap(i: number, j: number): void {
    const heap = this.heap as Candidate<T, K>[];
    const held = heap[i] as Candidate<T, K>;
    heap[i] = heap[j] as Candidate<T, K>;
    heap[j] = held;
  }
}
