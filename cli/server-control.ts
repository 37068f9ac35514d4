// Finds or starts the Temporal dev server for one-shot commands (demo, eval, bench).
import path from 'node:path';
import { portOpen, startDevServer, waitForPort } from '../scripts/dev-server';
import { temporalAddress } from './connection';

export interface EnsuredServer {
  address: string;
  started: boolean;
  uiUrl?: string;
  pid?: number;
}

export async function ensureDevServer(stateDir: string): Promise<EnsuredServer> {
  if (process.env.TEMPORAL_ADDRESS) return { address: temporalAddress(), started: false };
  if (await portOpen(7233)) return { address: '127.0.0.1:7233', started: false, uiUrl: 'http://localhost:8233' };
  const log = path.join(stateDir, 'temporal-server.log');
  const child = startDevServer({ stateDir, log, detached: true });
  child.unref();
  child.catch(() => undefined);
  await waitForPort(7233, 30_000, child);
  return { address: '127.0.0.1:7233', started: true, uiUrl: 'http://localhost:8233', pid: child.pid };
}
