// Writes docs/fidelity.md from every registered recipe's fidelity.ts: `npx tsx scripts/write-fidelity-doc.ts`
// (`--check`, run by `npm run lint`: fails while the committed page differs, as tests/unit/scripts/write-fidelity-doc.test.ts does).
import path from 'node:path';
import { renderFidelityDoc } from '../activities/recipes/fidelity';
import { RECIPES } from '../activities/recipes/registry';
import { PROJECT_ROOT } from '../activities/subprocess/node-script';
import { type GeneratedPage, runPageScript } from './generated-page';

export const FIDELITY_DOC = path.join(PROJECT_ROOT, 'docs', 'fidelity.md');
export const fidelityDoc = () => renderFidelityDoc(RECIPES.map((r) => r.fidelity));
export const fidelityPage: GeneratedPage = { file: FIDELITY_DOC, command: 'npx tsx scripts/write-fidelity-doc.ts', render: fidelityDoc };

runPageScript(import.meta.filename, fidelityPage);
