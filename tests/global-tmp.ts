// One temporary directory per test run, removed when the run ends: every test's state dirs, servers' data, sandboxes,
// Chromium profiles and Python's temp files go under it (TMPDIR is read by node's os.tmpdir(), Python, Go and
// Chromium), so a run leaves nothing behind on a disk shared with other runs. Forked test workers inherit TMPDIR.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export default function setup(): () => void {
  const root = mkdtempSync(path.join(os.tmpdir(), 'collab-loop-tests-'));
  chmodSync(root, 0o1777); // as /tmp: the sandbox's unprivileged uids must reach their run directories under it
  process.env.TMPDIR = root;
  return () => {
    try {
      rmSync(root, { recursive: true, force: true, maxRetries: 3, retryDelay: 200 });
    } catch (e) {
      // A process that outlived its test may still write there: the run's result stands.
      console.warn(`could not remove ${root}: ${(e as Error).message}`);
    }
  };
}
