// This host's copies of published checkpoints (<stateDir>/checkpoint-cache/<index sha256>), kept under a size cap
// (`collab-loop worker --checkpoint-cache-gb`, default 100): once a new entry makes the cache larger than the cap,
// the least recently used entries go, oldest first. Never one in use: an entry is in use while a process holding a
// lease on it lives (a model server serving it, a stage reading it: <hash>.leases/<pid>-<random>), and for a grace
// period after it was last handed out, which covers a stage between fetching a checkpoint and starting its server.
// Last use is the mtime of <hash>.used, touched whenever the entry is handed out.
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CHECKPOINT_CACHE_GB_ENV } from '../host-env';
import { isAlive } from '../subprocess/process-group';
import { localStateDir, type StorageOf } from './run-storage';

const DEFAULT_CAP_GB = 100;
/** An entry handed out this recently is kept whatever its leases say. */
export const IN_USE_GRACE_MS = 10 * 60_000;
const ENTRY = /^[0-9a-f]{64}$/;

export const checkpointCacheDir = (config: StorageOf) => path.join(localStateDir(config), 'checkpoint-cache');

/** The cap in bytes: the worker's --checkpoint-cache-gb, else the default. */
export function checkpointCacheCapBytes(): number {
  const gb = Number(process.env[CHECKPOINT_CACHE_GB_ENV] || DEFAULT_CAP_GB);
  return gb * 1024 ** 3;
}

/** Marks an entry used now (it is the last to go). */
export async function touchEntry(entry: string): Promise<void> {
  const used = `${entry}.used`;
  const now = new Date();
  await utimes(used, now, now).catch(() => writeFile(used, ''));
}

/** Keeps `entry` from eviction while process `pid` lives (or until the returned release is called). */
export async function leaseEntry(entry: string, pid = process.pid): Promise<() => Promise<void>> {
  const file = path.join(`${entry}.leases`, `${pid}-${randomBytes(4).toString('hex')}`);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, '');
  return () => rm(file, { force: true });
}

async function inUse(entry: string, usedMs: number): Promise<boolean> {
  if (Date.now() - usedMs < IN_USE_GRACE_MS) return true;
  const leases = await readdir(`${entry}.leases`).catch(() => [] as string[]);
  return leases.some((l) => isAlive(Number(l.split('-')[0])));
}

async function bytesUnder(dir: string): Promise<number> {
  let sum = 0;
  for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) sum += await bytesUnder(p);
    else if (e.isFile()) sum += (await stat(p)).size;
  }
  return sum;
}

/** Removes least recently used entries until the cache fits its cap; returns the entries removed (oldest first). */
export async function evictCheckpoints(config: StorageOf, capBytes = checkpointCacheCapBytes()): Promise<string[]> {
  const dir = checkpointCacheDir(config);
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => ENTRY.test(n));
  const entries = await Promise.all(
    names.map(async (n) => {
      const entry = path.join(dir, n);
      const used = await stat(`${entry}.used`).catch(() => stat(entry));
      return { entry, usedMs: used.mtimeMs, bytes: await bytesUnder(entry) };
    }),
  );
  let total = entries.reduce((s, e) => s + e.bytes, 0);
  const removed: string[] = [];
  for (const e of entries.sort((a, b) => a.usedMs - b.usedMs)) {
    if (total <= capBytes) break;
    if (await inUse(e.entry, e.usedMs)) continue;
    await rm(e.entry, { recursive: true, force: true });
    await rm(`${e.entry}.used`, { force: true });
    await rm(`${e.entry}.leases`, { recursive: true, force: true });
    total -= e.bytes;
    removed.push(e.entry);
  }
  return removed;
}
