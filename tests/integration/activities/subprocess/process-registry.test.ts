// The host's process registry (activities/subprocess/process-registry.ts) with real process groups: a group whose
// owning worker is gone is killed; one whose owner lives, or whose pid now belongs to another process (its start
// time differs from the recorded one), is left alone.
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { isAlive, processStartTime } from '../../../../activities/subprocess/process-group';
import { type GroupRecord, reapOrphans, recordGroup, registryDir, stopOwnGroups } from '../../../../activities/subprocess/process-registry';
import { tempStateDir } from '../../../helpers/config';
import { sleepingGroups } from '../../../helpers/sleeping-groups';

const groups = sleepingGroups();
afterEach(() => groups.killAll());
const group = () => groups.start();

/** The pid of a worker that has exited. */
async function deadWorker(): Promise<number> {
  const p = execa('true', { reject: false });
  await p;
  return p.pid!;
}

function writeRecord(stateDir: string, rec: GroupRecord): string {
  const file = path.join(registryDir(stateDir), `${rec.pid}.json`);
  recordGroup(stateDir, { pid: rec.pid, kind: rec.kind, argv: rec.argv }); // creates the directory
  writeFileSync(file, JSON.stringify(rec));
  return file;
}

describe('process registry', () => {
  it('kills a group whose owner is gone, and forgets it', async () => {
    const stateDir = tempStateDir();
    const pid = group();
    const file = writeRecord(stateDir, {
      pid,
      kind: 'server',
      port: 1,
      argv: ['sleep'],
      start: processStartTime(pid),
      owner: await deadWorker(),
      host: os.hostname(),
    });
    const reaped = await reapOrphans(stateDir);
    expect(reaped.map((r) => r.pid)).toEqual([pid]);
    expect(isAlive(pid)).toBe(false);
    expect(existsSync(file)).toBe(false);
  });

  it('never signals a pid that now belongs to another process', async () => {
    const stateDir = tempStateDir();
    const pid = group();
    const file = writeRecord(stateDir, {
      pid,
      kind: 'trainer',
      argv: ['sleep'],
      start: String(Number(processStartTime(pid)) - 1), // the recorded process started earlier: not this one
      owner: await deadWorker(),
      host: os.hostname(),
    });
    expect(await reapOrphans(stateDir)).toEqual([]);
    expect(isAlive(pid)).toBe(true);
    expect(existsSync(file)).toBe(false); // the record named a process that is gone
  });

  it("leaves another host's records alone (a state dir on a shared mount)", async () => {
    const stateDir = tempStateDir();
    const pid = group();
    const file = writeRecord(stateDir, {
      pid,
      kind: 'server',
      argv: ['sleep'],
      start: processStartTime(pid),
      owner: await deadWorker(),
      host: `not-${os.hostname()}`,
    });
    expect(await reapOrphans(stateDir)).toEqual([]);
    expect(isAlive(pid)).toBe(true);
    expect(existsSync(file)).toBe(true);
  });

  it('leaves the groups of a live worker to it, which stops them at its shutdown', async () => {
    const stateDir = tempStateDir();
    const pid = group();
    recordGroup(stateDir, { pid, kind: 'server', argv: ['sleep'] }); // owned by this process, which lives
    expect(await reapOrphans(stateDir)).toEqual([]);
    expect(isAlive(pid)).toBe(true);
    expect((await stopOwnGroups()).map((r) => r.pid)).toEqual([pid]);
    expect(isAlive(pid)).toBe(false);
  });

  it('keeps servers at shutdown when asked (a restart mid-iteration), and no later reap touches them', async () => {
    const stateDir = tempStateDir();
    const server = group();
    const trainer = group();
    recordGroup(stateDir, { pid: server, kind: 'server', argv: ['sleep'] });
    recordGroup(stateDir, { pid: trainer, kind: 'trainer', argv: ['sleep'] });
    expect((await stopOwnGroups({ keep: 'server' })).map((r) => r.pid)).toEqual([trainer]);
    expect(isAlive(trainer)).toBe(false);
    expect(isAlive(server)).toBe(true);
    expect(existsSync(path.join(registryDir(stateDir), `${server}.json`))).toBe(false);
  });
});
