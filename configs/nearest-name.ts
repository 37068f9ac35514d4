// "Did you mean": the known name nearest to a mistyped one by edit distance (Levenshtein, case-insensitive), so an
// unknown config field points at the one meant. A few dozen short keys: the textbook dynamic programme suffices.

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}

/** The nearest of `known` to `name`, when it is close enough to be a typo (at most a third of its letters differ). */
export function nearestName(name: string, known: readonly string[]): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const k of known) {
    const d = editDistance(name.toLowerCase(), k.toLowerCase());
    if (!best || d < best.d) best = { name: k, d };
  }
  return best && best.d <= Math.max(1, Math.floor(name.length / 3)) ? best.name : undefined;
}
