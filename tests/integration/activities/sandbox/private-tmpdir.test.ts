// A TMPDIR that other users cannot enter (a private /root/tmp, a 0700 mkdtemp) hides the sandbox's run directories
// from the unprivileged uids that run the code. The run fails with one line naming that directory and the fix,
// not with bwrap's "Can't find source path" blamed on user namespaces.
import { execa } from 'execa';
import { chmodSync, mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { unenterableAncestor } from '../../../../activities/sandbox/run-directories';
import { PROJECT_ROOT } from '../../../../activities/subprocess/node-script';

describe('the sandbox under a TMPDIR other users cannot enter', () => {
  it('finds the closed directory above the run directories', () => {
    const open = mkdtempSync(path.join(os.tmpdir(), 'open-'));
    chmodSync(open, 0o755);
    const closed = path.join(open, 'private');
    mkdirSync(path.join(closed, 'inner'), { recursive: true, mode: 0o755 });
    chmodSync(closed, 0o700);
    expect(unenterableAncestor(path.join(closed, 'inner', 'collab-loop-sandbox'))).toBe(closed);
    expect(unenterableAncestor(path.join(open, 'collab-loop-sandbox'))).toBeUndefined();
    // A TMPDIR that is a link into the closed directory: what counts is where it leads.
    symlinkSync(path.join(closed, 'inner'), path.join(open, 'link'));
    expect(unenterableAncestor(path.join(open, 'link', 'collab-loop-sandbox'))).toBe(closed);
  });

  it('a run says which directory and what to do, in one line', async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'private-tmp-')); // 0700, as mkdtemp makes it
    const script = `
      import { runSandboxedPython } from './activities/sandbox/python-sandbox.ts';
      try { await runSandboxedPython({ files: { 'main.py': 'print(1)' }, script: 'main.py' }); console.log('ran'); }
      catch (e) { console.log(e.name + ': ' + e.message); }`;
    const r = await execa(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: PROJECT_ROOT,
      env: { TMPDIR: tmp },
      reject: false,
    });
    expect(r.stdout.trim().split('\n')).toEqual([
      `SandboxConfigError: the sandbox's run directories are under ${tmp}/collab-loop-sandbox, but ${tmp} cannot be entered by other users (the sandbox runs code as unprivileged uids): point TMPDIR at a directory every user can enter, such as /tmp, or chmod o+x ${tmp}`,
    ]);
  });
});
