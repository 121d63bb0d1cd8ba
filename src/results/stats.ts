/**
 * Statistics of one series, gathered a sample at a time while the answer streams in, so that a cut
 * result can describe every series it had without holding their points.
 *
 * NaN samples count in `samples` but not in min, max or avg (an avg over them would be NaN too); `last`
 * is the last sample whatever it is. A series of NaN only has NaN for min, max and avg.
 */
export class SeriesStats {
  samples = 0;
  min = Number.NaN;
  max = Number.NaN;
  /** When `max` was first reached, in Prometheus's time (Unix seconds). */
  maxAt = Number.NaN;
  /** When `min` was first reached. */
  minAt = Number.NaN;
  last = Number.NaN;
  lastAt = Number.NaN;
  private sum = 0;
  private counted = 0;
  private positiveInfinity = false;
  private negativeInfinity = false;

  add(time: number, value: number): void {
    this.samples++;
    // A series' floats and native histograms come as two lists: the last is the latest of either.
    if (!(time < this.lastAt)) {
      this.last = value;
      this.lastAt = time;
    }
    if (Number.isNaN(value)) return;
    if (this.counted === 0 || value < this.min) {
      this.min = value;
      this.minAt = time;
    }
    if (this.counted === 0 || value > this.max) {
      this.max = value;
      this.maxAt = time;
    }
    this.counted++;
    if (value === Number.POSITIVE_INFINITY) this.positiveInfinity = true;
    else if (value === Number.NEGATIVE_INFINITY) this.negativeInfinity = true;
    else this.sum += value;
  }

  /** The mean of the samples that are not NaN: ±Inf when they hold that infinity, NaN when both. */
  get avg(): number {
    if (this.counted === 0) return Number.NaN;
    if (this.positiveInfinity && this.negativeInfinity) return Number.NaN;
    if (this.positiveInfinity) return Number.POSITIVE_INFINITY;
    if (this.negativeInfinity) return Number.NEGATIVE_INFINITY;
    return this.sum / this.counted;
  }
}
