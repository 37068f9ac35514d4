// docs/fidelity.md is what researchers read before comparing a run with a paper: it must say what the code does.
// It is generated from each recipe's fidelity.ts; these checks keep the page, the declarations and the code in step.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RECIPES } from '../../activities/recipes/registry';
import { PROJECT_ROOT } from '../../activities/subprocess/node-script';
import { FIDELITY_DOC, fidelityDoc } from '../../scripts/write-fidelity-doc';

const declarations = [...new Set(RECIPES.map((r) => r.fidelity))];
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

  it('is linked from the README', () => {
    expect(readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8')).toContain('](docs/fidelity.md)');
  });
});
