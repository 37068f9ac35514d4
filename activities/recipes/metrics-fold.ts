// Metrics folded as records stream past (evaluate reads an iteration's records shard by shard, never all at once):
// a fold holds running sums, so evaluating a million conversations takes the memory of one shard.
/** A recipe's metrics over a stream of its evaluation records (or one of them: `M` a number). */
export interface MetricsFold<Eval, M = Record<string, number>> {
  add(record: Eval): void;
  result(): M;
}

/** The metrics of records already in memory, through the same fold. */
export function foldRecords<Eval, M>(fold: MetricsFold<Eval, M>, records: Iterable<Eval>): M {
  for (const r of records) fold.add(r);
  return fold.result();
}

/** A running mean: 0 over no values (a rate over no conversations), never NaN. */
export class RunningMean {
  private sum = 0;
  n = 0;
  add(x: number): void {
    this.sum += x;
    this.n++;
  }
  get value(): number {
    return this.n ? this.sum / this.n : 0;
  }
  /** Undefined over no values, where a missing score must never read as 0 (the same sum as shared/mean.ts meanOf). */
  get mean(): number | undefined {
    return this.n ? this.sum / this.n : undefined;
  }
}
