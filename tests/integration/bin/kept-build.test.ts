// The kept build every entry point runs from (bin/kept-build.js): it runs as the sources would, is reused while they
// are unchanged, is made again after any edit or a new file that changes what an import resolves to, and is never
// shared between two checkouts.
import { execa } from 'execa';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtEntry } from '../../../bin/kept-build.js';
import { PROJECT_ROOT } from '../../../activities/subprocess/node-script';

/** A small project: main.ts prints what it imports (one module only when run, as the CLI's commands are), where it
 *  thinks it lives, and a value from a package. */
function project(cache = path.join(os.tmpdir(), `kept-build-cache-${process.pid}-${Math.random()}`)) {
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
      "const { later } = await import('./later');",
      'const where = { file: fileURLToPath(import.meta.url), filename: import.meta.filename, dirname: import.meta.dirname };',
      'console.log(JSON.stringify({ value, shape, later, ...where, ms: msToNumber("2s") }));',
    ].join('\n'),
  );
  writeFileSync(path.join(root, 'src', 'value.ts'), 'export const value: number = 1;\n');
  writeFileSync(path.join(root, 'src', 'later.ts'), "export const later = 'loaded when run';\n");
  writeFileSync(path.join(root, 'src', 'shape', 'index.ts'), "export const shape = 'folder';\n");
  return { root, cache };
}

async function run(built: string | undefined) {
  expect(built).toBeDefined();
  const { stdout } = await execa(process.execPath, [built as string]);
  return JSON.parse(stdout) as { value: number; shape: string; later: string; file: string; filename: string; dirname: string; ms: number };
}

const record = (cache: string) => {
  const [name] = readdirSync(cache).filter((f) => f.endsWith('.json'));
  return statSync(path.join(cache, name));
};

describe('kept build of an entry point', () => {
  it('runs like the sources, is reused while they are unchanged, and is made again after an edit', async () => {
    const where = project();
    const first = await builtEntry('src/main.ts', where);
    const main = path.join(where.root, 'src', 'main.ts');
    expect(await run(first)).toEqual({
      value: 1,
      shape: 'folder',
      later: 'loaded when run',
      file: main,
      filename: main,
      dirname: path.dirname(main),
      ms: 2000,
    });
    const written = record(where.cache);
    expect(await builtEntry('src/main.ts', where)).toBe(first);
    expect(record(where.cache).ino).toBe(written.ino); // not built again
    expect(record(where.cache).mtimeMs).toBe(written.mtimeMs);

    writeFileSync(path.join(where.root, 'src', 'later.ts'), "export const later = 'edited';\n");
    const edited = await builtEntry('src/main.ts', where);
    expect(edited).not.toBe(first);
    expect((await run(edited)).later).toBe('edited');
  });

  it('is made again when a new file changes what an import resolves to', async () => {
    const where = project();
    expect((await run(await builtEntry('src/main.ts', where))).shape).toBe('folder');
    writeFileSync(path.join(where.root, 'src', 'shape.ts'), "export const shape = 'file';\n"); // `./shape` now means this
    expect((await run(await builtEntry('src/main.ts', where))).shape).toBe('file');
  });

  it('is never run for another checkout sharing the cache (a copy, a worktree)', async () => {
    const a = project();
    expect((await run(await builtEntry('src/main.ts', a))).value).toBe(1);
    const b = project(a.cache);
    cpSync(path.join(a.root, 'src'), path.join(b.root, 'src'), { recursive: true });
    writeFileSync(path.join(b.root, 'src', 'value.ts'), 'export const value: number = 2;\n');
    const fromB = await run(await builtEntry('src/main.ts', b));
    expect(fromB).toMatchObject({ value: 2, file: path.join(b.root, 'src', 'main.ts') });
    expect((await run(await builtEntry('src/main.ts', a))).value).toBe(1);
  });

  it('gives no build for sources esbuild cannot build, so the caller runs them through tsx', async () => {
    const where = project();
    writeFileSync(path.join(where.root, 'src', 'value.ts'), 'export const value: number = ;\n');
    expect(await builtEntry('src/main.ts', where)).toBeUndefined();
  });
});
