// Writes docs/fidelity.md from every registered recipe's fidelity.ts: `npx tsx scripts/write-fidelity-doc.ts`.
// tests/unit/scripts/write-fidelity-doc.test.ts fails while the committed page differs from what this writes.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderFidelityDoc } from '../activities/recipes/fidelity';
import { RECIPES } from '../activities/recipes/registry';
import { PROJECT_ROOT } from '../activities/subprocess/node-script';

export const FIDELITY_DOC = path.join(PROJECT_ROOT, 'docs', 'fidelity.md');
export const fidelityDoc = () => renderFidelityDoc(RECIPES.map((r) => r.fidelity));

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  writeFileSync(FIDELITY_DOC, fidelityDoc());
  console.log(`wrote ${path.relative(PROJECT_ROOT, FIDELITY_DOC)}`);
}
