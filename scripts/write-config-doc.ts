// Writes docs/configuration.md from the config schema's descriptions: `npm run docs:config` (`--check`: fails while
// the committed page differs, as tests/unit/configs/config-doc.test.ts does).
import path from 'node:path';
import { PROJECT_ROOT } from '../activities/subprocess/node-script';
import { CONFIG_DOC_COMMAND, renderConfigDoc } from '../configs/config-doc';
import { type GeneratedPage, runPageScript } from './generated-page';

export const configPage: GeneratedPage = {
  file: path.join(PROJECT_ROOT, 'docs', 'configuration.md'),
  command: CONFIG_DOC_COMMAND,
  render: () => renderConfigDoc(),
};

runPageScript(import.meta.filename, configPage);
