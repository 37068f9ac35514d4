// Which `--set key=value` a config problem comes from: the one whose key is the problem's field, under it or above
// it (the last such, as later overrides win). A problem there is the override's, not the YAML file's.

const under = (a: readonly string[], b: readonly string[]) => a.length <= b.length && a.every((k, i) => k === b[i]);

export function overrideOf(field: string | undefined, overrides: readonly string[]): string | undefined {
  if (!field) return undefined;
  const f = field.split('.');
  for (const o of [...overrides].reverse()) {
    const key = o.slice(0, Math.max(0, o.indexOf('='))).split('.');
    if (under(key, f) || under(f, key)) return o;
  }
  return undefined;
}
