// Pid files (activities/subprocess/process-group.ts), which undeploy and a retried stage act on: the group they
// name is killed while it is the recorded one; a pid that now belongs to another process is never signalled.
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isAlive, processStartTime, readPidFile, reapPidFile, writePidFile } from '../../../../activities/subprocess/process-group';
import { tempStateDir } from '../../../helpers/config';
import { sleepingGroups } from '../../../helpers/sleeping-groups';

const groups = sleepingGroups();
afterEach(() => groups.killAll());
const group = () => groups.start();

describe('pid files', () => {
  it('kill the group they name', async () => {
    const file = path.join(tempStateDir(), 'server.json');
    const pid = group();
    writePidFile(file, { pid });
    expect(readPidFile(file)?.start).toBe(processStartTime(pid));
    expect((await reapPidFile(file))?.pid).toBe(pid);
    expect(isAlive(pid)).toBe(false);
    expect(existsSync(file)).toBe(false);
  });

  it('never signal a pid that now belongs to another process', async () => {
    const file = path.join(tempStateDir(), 'server.json');
    const pid = group();
    writeFileSync(file, JSON.stringify({ pid, start: String(Number(processStartTime(pid)) - 1) }));
    expect(await reapPidFile(file)).toBeUndefined();
    expect(isAlive(pid)).toBe(true);
    expect(existsSync(file)).toBe(false);
  });
});
