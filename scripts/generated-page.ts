// A docs/ page written by a script from the code (docs/fidelity.md, docs/configuration.md). Run as a script it
// writes the page; with `--check` (npm run lint) it fails while the committed page differs from what it would write,
// as the page's test does, both with the same message.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../activities/subprocess/node-script';

export interface GeneratedPage {
  /** Absolute path of the page. */
  file: string;
  /** The command that writes it. */
  command: string;
  render: () => string;
}

const shown = (page: GeneratedPage) => path.relative(PROJECT_ROOT, page.file);

/** Why the committed page is not what the code renders now, or undefined when it is. */
export function stalePage(page: GeneratedPage): string | undefined {
  const committed = existsSync(page.file) ? readFileSync(page.file, 'utf8') : undefined;
  if (committed === page.render()) return undefined;
  return `${shown(page)} ${committed === undefined ? 'is missing' : 'is stale'}: run \`${page.command}\` and commit it`;
}

/** The script's main when `scriptFile` is the script node runs: write the page, or with `--check` only compare. */
export function runPageScript(scriptFile: string, page: GeneratedPage): void {
  if (!process.argv[1] || path.resolve(process.argv[1]) !== path.resolve(scriptFile)) return;
  if (process.argv.includes('--check')) {
    const stale = stalePage(page);
    if (stale) {
      console.error(stale);
      process.exitCode = 1;
    }
    return;
  }
  writeFileSync(page.file, page.render());
  console.log(`wrote ${shown(page)}`);
}
