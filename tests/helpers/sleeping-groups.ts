// Real process groups that run until killed (stand-ins for a model server or a trainer), and their clean-up.
import { execa, type ResultPromise } from 'execa';
import { groupAlive, killProcessGroup } from '../../activities/subprocess/process-group';

export function sleepingGroups() {
  const started: ResultPromise[] = [];
  return {
    /** Starts one, detached (its own group, as servers and trainers start); its pid is its group id. */
    start(): number {
      const p = execa('sleep', ['600'], { detached: true, reject: false, stdio: 'ignore' });
      started.push(p);
      return p.pid!;
    },
    async killAll(): Promise<void> {
      for (const p of started.splice(0)) if (p.pid && groupAlive(p.pid)) await killProcessGroup(p.pid, 1000);
    },
  };
}
