// The project's own Prometheus metrics: named instruments created once, on the meter of the worker's Temporal
// runtime when `collab-loop worker --metrics-port` exports one, else on the SDK's no-op meter (unit tests, workers
// without the flag), so call sites never ask whether metrics are on. Each activity runs with its run's name as
// the `run` label (workers/metric-labels.ts sets it, and the iteration, from the activity's input); call sites add
// role, endpoint, kind or outcome. What only the workflow knows (needs attention, budget, stage durations) is
// emitted by workflows/run-metrics.ts on the workflow's meter.
import { AsyncLocalStorage } from 'node:async_hooks';
import { type MetricMeter, type MetricTags, noopMetricMeter } from '@temporalio/common';

function instruments(meter: MetricMeter) {
  const counter = (name: string, description: string, unit = '') => meter.createCounter(`collab_loop_${name}`, unit, description);
  return {
    llmCalls: counter('llm_calls', 'LLM calls answered, cache hits included'),
    llmCacheHits: counter('llm_cache_hits', 'LLM calls answered from the durable request cache'),
    llmRequests: counter('llm_requests', 'requests an endpoint answered (paid calls: cache misses)'),
    llmPromptTokens: counter('llm_prompt_tokens', 'prompt tokens of paid calls', 'tokens'),
    llmCompletionTokens: counter('llm_completion_tokens', 'completion tokens of paid calls', 'tokens'),
    llmRetries: counter('llm_retries', 'failed requests retried by the LLM client, by error kind'),
    llmFailures: counter('llm_failures', 'LLM calls given up by the client (handed to Temporal), by error kind'),
    sandboxRuns: counter('sandbox_runs', 'sandboxed Python runs, by outcome (ok, error, timeout)'),
    renders: counter('renders', 'web pages rendered to PNG'),
    trainerSteps: counter('trainer_steps', 'training steps trainers reported'),
    storageErrors: counter('storage_errors', 'failed requests to the S3 object store (retried ones included), by operation and kind'),
    storageUploadedBytes: counter('storage_uploaded_bytes', 'bytes written to the S3 object store', 'bytes'),
    storageDownloadedBytes: counter('storage_downloaded_bytes', 'bytes read from the S3 object store', 'bytes'),
    checkpointUploads: counter('checkpoint_uploads', 'checkpoints published to the object store, by kind (final, step)'),
    checkpointUploadedBytes: counter('checkpoint_uploaded_bytes', 'checkpoint bytes uploaded (files already stored are skipped)', 'bytes'),
    checkpointFetches: counter('checkpoint_fetches', 'published checkpoints fetched from the object store onto a host'),
    checkpointFetchedBytes: counter('checkpoint_fetched_bytes', 'checkpoint bytes fetched from the object store', 'bytes'),
  };
}

export type Instruments = ReturnType<typeof instruments>;

let current: Instruments = instruments(noopMetricMeter);
/** False on the no-op meter: then count() does nothing at all. */
let recording = false;

/** Called once per process by the worker that exports metrics (Temporal's runtime meter). */
export function useMetricMeter(meter: MetricMeter): void {
  flushMetrics(); // what was counted goes to the meter it was counted for
  current = instruments(meter);
  recording = meter !== noopMetricMeter;
}

/** The activity's run (the `run` label) and iteration (part of a served endpoint's label: client.ts). */
const activityRun = new AsyncLocalStorage<{ run: string; iteration?: number }>();

/** Runs `fn` with `run` as the run label of every metric it records, in `iteration` of that run if known. */
export const withRunLabel = <T>(run: string, fn: () => T, iteration?: number): T => activityRun.run({ run, iteration }, fn);

/** The iteration of the activity that is running, if its input names one. */
export const metricIteration = (): number | undefined => activityRun.getStore()?.iteration;

// Adds are summed here and handed to the meter in batches — every second, when an activity ends
// (workers/metric-labels.ts) and before a scrape-reader reads them (tests) — because each add on the Temporal
// runtime's meter crosses into its core with the labels as JSON: with four counters per LLM call that was a
// twentieth of a millisecond per call at 512 in flight (`npm run bench` llm-cpu). Totals stay exact.
interface Pending {
  counter: Instruments[keyof Instruments];
  tags: MetricTags;
  value: number;
}
const pending = new Map<string, Pending>();
/** The key of a call site's labels object, computed once per object (the LLM client passes the same one each call). */
const labelKeys = new WeakMap<MetricTags, string>();
let flushing = false;

function labelKey(labels: MetricTags): string {
  let key = labelKeys.get(labels);
  if (key === undefined) labelKeys.set(labels, (key = JSON.stringify(labels)));
  return key;
}

/** Hands every pending sum to its meter. */
export function flushMetrics(): void {
  for (const p of pending.values()) p.counter.add(p.value, p.tags);
  pending.clear();
}

/** Adds `value` to one of the instruments, with the current run's label and the call site's `labels`. */
export function count(name: keyof Instruments, value: number, labels: MetricTags = {}): void {
  if (!recording || !(value > 0)) return;
  const run = activityRun.getStore()?.run ?? '';
  const key = `${name}\u0000${run}\u0000${labelKey(labels)}`;
  const p = pending.get(key);
  if (p) p.value += value;
  else pending.set(key, { counter: current[name], tags: { run, ...labels }, value });
  if (!flushing) {
    flushing = true;
    setInterval(flushMetrics, 1000).unref();
  }
}
