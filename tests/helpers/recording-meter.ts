// A MetricMeter that records what the activities count (activities/metrics.ts), as the worker's Prometheus
// exporter would receive it, so a test can read the counters without a Temporal runtime.
import { type MetricMeter, noopMetricMeter } from '@temporalio/common';
import { flushMetrics, useMetricMeter } from '../../activities/metrics';

export interface RecordingMeter {
  /** The total added to counter `name` by adds whose labels include every one of `labels`. */
  sum(name: string, labels?: Record<string, unknown>): number;
  /** Back to the no-op meter. */
  stop(): void;
}

export function recordMetrics(): RecordingMeter {
  const recorded: Array<{ name: string; value: number; tags: Record<string, unknown> }> = [];
  const meter = {
    createCounter: (name: string) => ({ add: (value: number, tags = {}) => recorded.push({ name, value, tags }) }),
  } as unknown as MetricMeter;
  useMetricMeter(meter);
  return {
    sum: (name, labels = {}) => {
      flushMetrics(); // counts reach the meter in batches
      return recorded
        .filter((r) => r.name === name && Object.entries(labels).every(([k, v]) => r.tags[k] === v))
        .reduce((s, r) => s + r.value, 0);
    },
    stop: () => useMetricMeter(noopMetricMeter),
  };
}
