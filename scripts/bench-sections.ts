// The sections `npm run bench` knows, in the order it runs them: those that share one Temporal dev server (their
// peak RSS is measured together, as `peak-rss`), then those that start what they need themselves. Each has its
// block of figures in docs/benchmarks.md (scripts/bench-figures.ts).
export const TEMPORAL_SECTIONS = [
  'coral',
  'debate',
  'collabllm-build',
  'toa-search',
  'toa-methods',
  'math-grading',
  'model-roles',
  's3-overhead',
  'storage-outage',
] as const;
export type TemporalSection = (typeof TEMPORAL_SECTIONS)[number];

/** ColBench scoring (the sandbox, the renderer, the screenshot scores), the CPU an LLM call costs in a worker
 *  process (llm-cpu starts its own Temporal dev server and endpoint), the request cache's index at a large cache's
 *  size, the object stores' throughput, endpoint limits shared by two processes through Redis, and one iteration of
 *  10k to 1M conversations on worker processes (scale). */
export const STANDALONE_SECTIONS = [
  'sandbox',
  'render',
  'clip-vs-default',
  'llm-cpu',
  'cache-index',
  'object-store',
  'shared-limits',
  'scale',
] as const;

/** The Temporal sections' peak RSS, printed once after them: a block of its own. */
export const PEAK_RSS = 'peak-rss';

export const BENCH_SECTIONS: readonly string[] = [...TEMPORAL_SECTIONS, ...STANDALONE_SECTIONS];
