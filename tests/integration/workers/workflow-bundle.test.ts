// A worker start reuses the workflow bundle while the files it was built from are unchanged, and bundles again as
// soon as one of them changes: the time saved never costs running a stale workflow.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../../activities/subprocess/node-script';
import { keptWorkflowBundle } from '../../../workers/workflow-bundle';
import { tempStateDir } from '../../helpers/config';

const quiet = { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} } as never;

/** A workflows entry file and a module it imports, in a folder that resolves the project's packages. */
function workflowsFolder(): { entry: string; helper: string } {
  const dir = tempStateDir();
  symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  const entry = path.join(dir, 'index.ts');
  const helper = path.join(dir, 'greeting.ts');
  writeFileSync(helper, `export const greeting = 'first greeting';\n`);
  writeFileSync(entry, `import { greeting } from './greeting';\nexport async function greet(): Promise<string> {\n  return greeting;\n}\n`);
  return { entry, helper };
}

describe('the kept workflow bundle', () => {
  it('is reused while its sources are unchanged and rebuilt when one changes', async () => {
    const { entry, helper } = workflowsFolder();
    const cache = path.join(tempStateDir(), 'bundles');

    const first = await keptWorkflowBundle(entry, quiet, cache);
    expect(first.code).toContain('first greeting');
    const [kept] = readdirSync(cache);
    const keptFile = path.join(cache, kept);
    const { files } = (JSON.parse(readFileSync(keptFile, 'utf8')) as { sources: { files: Record<string, string> } }).sources;
    // The record names the files webpack read: the entry, what it imports, and the SDK's own workflow code.
    expect(Object.keys(files)).toEqual(expect.arrayContaining([entry, helper]));
    expect(Object.keys(files).some((f) => f.includes(`${path.sep}@temporalio${path.sep}workflow${path.sep}`))).toBe(true);
    const written = statSync(keptFile);

    // Unchanged sources: the same code, and the kept file was not written again (no bundling happened).
    const second = await keptWorkflowBundle(entry, quiet, cache);
    expect(second.code).toBe(first.code);
    expect(statSync(keptFile).mtimeMs).toBe(written.mtimeMs);
    expect(statSync(keptFile).ino).toBe(written.ino);

    // An imported module changed: the next start bundles the new code.
    writeFileSync(helper, `export const greeting = 'second greeting';\n`);
    const third = await keptWorkflowBundle(entry, quiet, cache);
    expect(third.code).toContain('second greeting');
    expect(third.code).not.toContain('first greeting');
    expect(statSync(keptFile).ino).not.toBe(written.ino);
  });

  it('a bundle kept by an older version of the record (files and missing paths, no folders) is bundled again', async () => {
    const { entry } = workflowsFolder();
    const cache = path.join(tempStateDir(), 'bundles');
    await keptWorkflowBundle(entry, quiet, cache);
    const [kept] = readdirSync(cache);
    const keptFile = path.join(cache, kept);
    const { key, sources } = JSON.parse(readFileSync(keptFile, 'utf8')) as { key: string; sources: { files: Record<string, string> } };
    writeFileSync(keptFile, JSON.stringify({ key, files: sources.files, missing: [], code: 'stale' }));
    expect((await keptWorkflowBundle(entry, quiet, cache)).code).toContain('first greeting');
  });

  it('a bundle kept for one entry file is never served for another', async () => {
    const a = workflowsFolder();
    const b = workflowsFolder();
    writeFileSync(b.helper, `export const greeting = 'other folder';\n`);
    const cache = path.join(tempStateDir(), 'bundles');
    expect((await keptWorkflowBundle(a.entry, quiet, cache)).code).toContain('first greeting');
    expect((await keptWorkflowBundle(b.entry, quiet, cache)).code).toContain('other folder');
    expect((await keptWorkflowBundle(a.entry, quiet, cache)).code).toContain('first greeting');
  });
});
