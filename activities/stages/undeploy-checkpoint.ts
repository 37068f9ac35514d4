// The undeploy stage (also the workflow's cleanup): stops every server of the iteration — each process group its
// pid file names — and removes the pid files. True when a server was running.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { StageContext } from '../../contracts/activities';
import { serversDir } from '../serving/checkpoint-servers';
import { killProcessGroup, readPidFile } from '../subprocess/process-group';

export async function undeployCheckpoint(input: StageContext): Promise<boolean> {
  const dir = serversDir(input);
  if (!existsSync(dir)) return false;
  const mine = readdirSync(dir).filter((f) => f.startsWith(`iter-${input.iteration}.`));
  let any = false;
  for (const f of mine) {
    const rec = readPidFile(path.join(dir, f));
    if (typeof rec?.pid === 'number') {
      await killProcessGroup(rec.pid);
      any = true;
    }
    rmSync(path.join(dir, f), { force: true });
  }
  return any;
}
