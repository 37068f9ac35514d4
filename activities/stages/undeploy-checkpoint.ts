// The undeploy stage (also the workflow's cleanup): stops every server of the iteration — each process group its
// pid file names — and removes the pid files. True when a server was running.
import type { StageContext } from '../../contracts/activities';
import { stopIterationServers } from '../serving/checkpoint-servers';

export const undeployCheckpoint = (input: StageContext): Promise<boolean> => stopIterationServers(input);
