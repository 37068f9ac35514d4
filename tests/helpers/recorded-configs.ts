// The configs recorded histories carry (tests/histories): every payload's `config` — the workflow's start input
// and each activity's input — as earlier code wrote it.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const HISTORIES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'histories');
export const historyFiles = (): string[] => readdirSync(HISTORIES).filter((f) => f.endsWith('.json'));

/** A history's JSON form keeps a payload's metadata and data base64-encoded. */
const base64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');
const jsonPayload = (x: Record<string, unknown>): x is { metadata: { encoding: string }; data: string } =>
  typeof x.data === 'string' &&
  typeof (x.metadata as { encoding?: unknown } | undefined)?.encoding === 'string' &&
  base64((x.metadata as { encoding: string }).encoding) === 'json/plain';

/** Walks the history and the values its payloads hold, collecting every `config`. */
function collect(x: unknown, out: Record<string, unknown>[]): void {
  if (!x || typeof x !== 'object') return;
  const o = x as Record<string, unknown>;
  if (jsonPayload(o)) {
    collect(JSON.parse(base64(o.data)), out);
    return;
  }
  if (o.config && typeof o.config === 'object' && 'recipe' in o.config) out.push(o.config as Record<string, unknown>);
  for (const v of Object.values(o)) collect(v, out);
}

/** Every config in one recorded history, in event order. */
export function recordedConfigs(file: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  collect(JSON.parse(readFileSync(path.join(HISTORIES, file), 'utf8')).history, out);
  return out;
}
