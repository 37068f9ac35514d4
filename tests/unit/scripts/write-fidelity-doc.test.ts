// docs/fidelity.md is what researchers read before comparing a run with a paper: it must say what the code does.
// It is generated from each recipe's fidelity.ts; these checks keep the page, the declarations and the code in step.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RECIPES } from '../../../activities/recipes/registry';
import { PROJECT_ROOT } from '../../../activities/subprocess/node-script';
import { FIDELITY_DOC, fidelityDoc } from '../../../scripts/write-fidelity-doc';

const declarations = [...new Set(RECIPES.map((r) => r.fidelity))];

/** A branch on the compat switch: `compat === 'seed'`, `cfg.compat !== 'fixed'`, … */
const COMPAT_BRANCH = /\bcompat\s*[!=]==\s*'(?:seed|fixed)'/;
/** A branch is marked when `SEED-COMPAT` is on its line, in the comment just above (10 lines), or just below (3). */
const MARK_BEFORE = 10;
const MARK_AFTER = 3;

/** `file:line` of each compat branch of `text` that carries no SEED-COMPAT marker. */
function unmarkedBranches(file: string, text: string): string[] {
  const lines = text.split('\n');
  return lines.flatMap((line, i) =>
    COMPAT_BRANCH.test(line) && !lines.slice(Math.max(0, i - MARK_BEFORE), i + 1 + MARK_AFTER).some((l) => l.includes('SEED-COMPAT'))
      ? [`${file}:${i + 1}: ${line.trim()}`]
      : [],
  );
}

/** Every TypeScript file that may branch on compat: the recipes (shared graders included) and the sandbox. */
function compatSources(): string[] {
  const roots = ['activities/recipes', 'activities/sandbox'].map((r) => path.join(PROJECT_ROOT, r));
  return roots.flatMap((root) =>
    readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !/(^|\/)(compat|fidelity)\.ts$/.test(f))
      .map((f) => path.join(root, f)),
  );
}
const whereFiles = (folder: string, where: string) =>
  where.split(/,\s*/).map((w) => (w.includes('/') ? path.join(PROJECT_ROOT, w) : path.join(PROJECT_ROOT, 'activities/recipes', folder, w)));

describe('docs/fidelity.md', () => {
  it('is the page the recipes declare (run `npx tsx scripts/write-fidelity-doc.ts` after editing a fidelity.ts)', () => {
    expect(readFileSync(FIDELITY_DOC, 'utf8')).toBe(fidelityDoc());
  });

  it('has a compat table for exactly the recipes with a `compat` switch, and every file a row names exists', () => {
    for (const r of RECIPES) {
      const hasSwitch = 'compat' in r.schema.shape;
      expect(r.fidelity.compat.length > 0, `${r.name}: compat switch ${hasSwitch}`).toBe(hasSwitch);
    }
    for (const f of declarations)
      for (const row of f.compat)
        for (const file of whereFiles(f.folder, row.where)) expect(existsSync(file), `${f.title}: ${row.behaviour} → ${file}`).toBe(true);
  });

  it('names every file of a recipe that holds a SEED-COMPAT branch', () => {
    for (const f of declarations) {
      const dir = path.join(PROJECT_ROOT, 'activities/recipes', f.folder);
      const named = new Set(f.compat.flatMap((row) => whereFiles(f.folder, row.where)));
      const marked = readdirSync(dir)
        .filter(
          (file) => !['compat.ts', 'fidelity.ts'].includes(file) && readFileSync(path.join(dir, file), 'utf8').includes('SEED-COMPAT'),
        )
        .map((file) => path.join(dir, file));
      for (const file of marked) expect(named.has(file), `${f.title}: ${file} has a SEED-COMPAT branch no row names`).toBe(true);
    }
  });

  it('every compat branch of the recipes and the sandbox is marked SEED-COMPAT (an unmarked one fails)', () => {
    // The rule itself: an unmarked branch is found, a marked one is not.
    expect(unmarkedBranches('x.ts', "const a = 1;\nconst b = compat === 'seed' ? 2 : 3;")).toEqual([
      "x.ts:2: const b = compat === 'seed' ? 2 : 3;",
    ]);
    expect(unmarkedBranches('x.ts', "// SEED-COMPAT: the seed's way.\nconst b = cfg.compat !== 'fixed' ? 2 : 3;")).toEqual([]);
    const files = compatSources();
    expect(files.length).toBeGreaterThan(20);
    const unmarked = files.flatMap((f) => unmarkedBranches(path.relative(PROJECT_ROOT, f), readFileSync(f, 'utf8')));
    expect(unmarked, 'add a `SEED-COMPAT:` comment saying what the seed does, and name the file in the fidelity.ts row').toEqual([]);
  });

  it('is linked from the README', () => {
    expect(readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8')).toContain('](docs/fidelity.md)');
  });
});
