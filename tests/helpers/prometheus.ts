// Reading a worker's Prometheus endpoint (`collab-loop worker --metrics-port`) as a scraper would.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (`name{a="x",b="y"} 3`); comments skipped. */
export function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!m) continue;
    const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

/** The samples named `name` whose labels include every one of `labels`. */
export const matching = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));

/** The sum of those samples (0 when there is none). */
export const total = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  matching(samples, name, labels).reduce((sum, s) => sum + s.value, 0);

/** One scrape of the worker's /metrics on `port`. */
export async function scrape(port: number): Promise<Sample[]> {
  return parseExposition(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text());
}
