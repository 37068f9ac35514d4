// Runs tests/fixtures/journal-writer.ts (a process caching answers `w-<n>` as fast as it can) until it has
// acknowledged `count` answers, then SIGKILLs it: the answers it acknowledged, which any other process must find.
import { execa } from 'execa';
import { PROJECT_ROOT } from '../../activities/subprocess/node-script';
import { waitUntil } from './wait';

/** @param storage a run's storage section: the run's request cache in that store rather than a journal in `dir` */
export async function ackedBeforeKill(dir: string, count: number, storage?: unknown): Promise<number[]> {
  const args = ['--import', 'tsx', 'tests/fixtures/journal-writer.ts', dir, 'w', ...(storage ? [JSON.stringify(storage)] : [])];
  const child = execa(process.execPath, args, { cwd: PROJECT_ROOT, reject: false });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  await waitUntil(async () => (out.match(/acked/g)?.length ?? 0) >= count, 60_000, `${count} acknowledged answers`);
  child.kill('SIGKILL');
  await child;
  return [...out.matchAll(/acked (\d+)/g)].map((m) => Number(m[1]));
}
