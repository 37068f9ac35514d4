// The kept build every entry point runs from (bin/kept-build.js): reused while its sources are unchanged, made
// again after any edit or a new file that changes what an import resolves to, and never run stale.
import { execa } from 'execa';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtEntry } from '../../../bin/kept-build.js';
import { PROJECT_ROOT } from '../../../activities/subprocess/node-script';

/** A small project: main.ts prints what it imports, where it thinks it lives, and a value from a package. */
function project(): { root: string; cache: string } {
  const root = mkdtempSync(path.join(os.tmpdir(), 'collab-loop-kept-build-'));
  symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(root, 'node_modules'));
  mkdirSync(path.join(root, 'src', 'shape'), { recursive: true });
  writeFileSync(
    path.join(root, 'src', 'main.ts'),
    [
      "import { fileURLToPath } from 'node:url';",
      "import { msToNumber } from '@temporalio/common/lib/time';", // a deep import without its extension
      "import { value } from './value';",
      "import { shape } from './shape';",
      'console.log(JSON.stringify({ value, shape, file: fileURLToPath(import.meta.url), ms: msToNumber("2s") }));',
    ].join('\n'),
  );
  writeFileSync(path.join(root, 'src', 'value.ts'), 'export const value: number = 1;\n');
  writeFileSync(path.join(root, 'src', 'shape', 'index.ts'), "export const shape = 'folder';\n");
  return { root, cache: path.join(root, 'cache') };
}

async function run(built: string | undefined) {
  expect(built).toBeDefined();
  const { stdout } = await execa(process.execPath, [built as string]);
  return JSON.parse(stdout) as { value: number; shape: string; file: string; ms: number };
}

describe('kept build of an entry point', () => {
  it('runs like the sources, is reused while they are unchanged, and is made again after an edit', async () => {
    const where = project();
    const first = await builtEntry('src/main.ts', where);
    expect(await run(first)).toEqual({ value: 1, shape: 'folder', file: path.join(where.root, 'src', 'main.ts'), ms: 2000 });
    const record = readFileSync(path.join(where.cache, 'src__main.ts.json'), 'utf8');
    expect(await builtEntry('src/main.ts', where)).toBe(first);
    expect(readFileSync(path.join(where.cache, 'src__main.ts.json'), 'utf8')).toBe(record); // not built again

    writeFileSync(path.join(where.root, 'src', 'value.ts'), 'export const value: number = 2;\n');
    const edited = await builtEntry('src/main.ts', where);
    expect(edited).not.toBe(first);
    expect((await run(edited)).value).toBe(2);
  });

  it('is made again when a new file changes what an import resolves to', async () => {
    const where = project();
    expect((await run(await builtEntry('src/main.ts', where))).shape).toBe('folder');
    writeFileSync(path.join(where.root, 'src', 'shape.ts'), "export const shape = 'file';\n"); // `./shape` now means this
    expect((await run(await builtEntry('src/main.ts', where))).shape).toBe('file');
  });

  it('gives no build for sources esbuild cannot build, so the caller runs them through tsx', async () => {
    const where = project();
    writeFileSync(path.join(where.root, 'src', 'value.ts'), 'export const value: number = ;\n');
    expect(await builtEntry('src/main.ts', where)).toBeUndefined();
  });
});
