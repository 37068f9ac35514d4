// What each metric of an iteration is, so the report can draw it honestly: a rate on a fixed 0–1 axis (0.583 →
// 0.500 is a small drop, not a collapse), a count or amount on an axis from 0 and apart from the rates, a standard
// error as error bars on its metric, and metrics that are one per agent / round / method as lines of one plot. Each
// recipe declares its metrics beside the code that computes them (its metrics.ts, RecipeRuntime.metricKinds); a
// metric no declaration matches is a `value` with its own range.

export type MetricKind =
  /** A share between 0 and 1 (accuracy, agreement, similarity): drawn on a 0–1 axis. */
  | 'rate'
  /** A number of things or an amount (conversations, tokens, turns, TFLOPs): axis from 0, in the counts group. */
  | 'count'
  /** Anything else (a reward, a loss, a signed difference): its own range. */
  | 'value';

export type MetricSpec =
  | {
      /** The whole key; a pattern with one capture names the line when `plot` is set. */
      match: string | RegExp;
      kind: MetricKind;
      /** Metrics that are one per agent, round or method share this plot, one line each, named by `line` with `$1`
       *  replaced by the key's capture (e.g. `agent $1` for agent_0_accuracy). */
      plot?: string;
      line?: string;
    }
  /** A standard error: drawn as error bars on the metric `of`, never as a plot of its own. */
  | { match: string; se: string };

export interface PlotLine {
  name: string;
  key: string;
  /** The key of this line's standard error, when one is declared and present. */
  seKey?: string;
}

export interface MetricPlot {
  title: string;
  kind: MetricKind;
  lines: PlotLine[];
}

const matches = (m: string | RegExp, key: string) => (typeof m === 'string' ? m === key : m.test(key));

/** Whether a recipe's declarations name this metric key (a metric it computes). */
export const declaresMetric = (specs: readonly MetricSpec[], key: string) => specs.some((s) => matches(s.match, key));

/**
 * The plots for these metric keys, in key order: grouped metrics become one plot at the place of their first key,
 * standard errors attach to their metric's line. A standard error whose metric is absent is plotted as a value.
 */
export function metricPlots(keys: readonly string[], specs: readonly MetricSpec[]): MetricPlot[] {
  const seOf = new Map<string, string>();
  for (const key of keys) {
    const s = specs.find((sp) => matches(sp.match, key));
    if (s && 'se' in s && keys.includes(s.se)) seOf.set(s.se, key);
  }
  const plots = new Map<string, MetricPlot>();
  for (const key of keys) {
    if ([...seOf.values()].includes(key)) continue;
    const s = specs.find((sp) => matches(sp.match, key));
    const spec = s && 'kind' in s ? s : undefined;
    const line: PlotLine = { name: key, key, ...(seOf.has(key) ? { seKey: seOf.get(key) } : {}) };
    if (spec?.plot) {
      const captured = typeof spec.match === 'string' ? undefined : spec.match.exec(key)?.[1];
      line.name = spec.line && captured !== undefined ? spec.line.replace('$1', captured) : key;
      const id = `plot:${spec.plot}`;
      const p = plots.get(id) ?? { title: spec.plot, kind: spec.kind, lines: [] };
      p.lines.push(line);
      plots.set(id, p);
    } else plots.set(`key:${key}`, { title: key, kind: spec?.kind ?? 'value', lines: [line] });
  }
  return [...plots.values()];
}
