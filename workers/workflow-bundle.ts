// The workflow bundle a worker runs, built once per set of sources. Webpack takes seconds of CPU per worker start;
// Temporal's production advice is to bundle ahead of time (samples-typescript production/src/scripts/
// build-workflow-bundle.ts). Bundling ahead needs a build step to remember and can go stale; instead the bundle is
// kept with a record of the files webpack read to make it (bin/kept-sources.js, as the entry points' builds are) and
// reused only while they and their folders are unchanged and every path webpack probed and found missing is still
// missing. So a stale bundle is never used: an edited workflow rebundles at the next worker start.
import { bundleWorkflowCode, type BundleOptions, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PROJECT_ROOT } from '../activities/subprocess/node-script';
import { freshRecord, type Sources, sha256, sourcesOf, writeAtomic } from '../bin/kept-sources.js';

const require = createRequire(import.meta.url);

/** Where bundles are kept: the conventional place for a tool's cache in a Node project (find-cache-dir). */
export const BUNDLE_CACHE_DIR = path.join(PROJECT_ROOT, 'node_modules', '.cache', 'collab-loop', 'workflow-bundles');

interface CachedBundle {
  /** What the bundle was built from besides its files: the entry and the bundler's version. */
  key: string;
  /** Every file webpack read, and their folders. */
  sources: Sources;
  /** Every path webpack probed and found missing (a file there would change what an import resolves to). */
  missing: string[];
  code: string;
}

const bundlerVersion = (): string => (require('@temporalio/worker/package.json') as { version: string }).version;

/** The bundle of `workflowsPath`: the kept one while its sources are unchanged, else a new one (then kept). */
export async function keptWorkflowBundle(
  workflowsPath: string,
  logger: BundleOptions['logger'],
  cacheDir = BUNDLE_CACHE_DIR,
): Promise<{ code: string }> {
  const key = `${workflowsPath}\n${bundlerVersion()}`;
  const file = path.join(cacheDir, `${sha256(key).slice(0, 16)}.json`);
  const kept = readKept(file, key);
  if (kept) {
    logger?.debug(`workflow bundle reused: ${file} (${Object.keys(kept.sources.files).length} source files unchanged since it was built)`);
    return { code: kept.code };
  }

  let read: { files: string[]; missing: string[] } = { files: [], missing: [] };
  const bundle: WorkflowBundleWithSourceMap = await bundleWorkflowCode({
    workflowsPath,
    logger,
    webpackConfigHook: (config) => ({
      ...config,
      plugins: [
        ...(config.plugins ?? []),
        {
          apply(compiler) {
            compiler.hooks.done.tap('collab-loop-bundle-inputs', (stats) => {
              read = { files: [...stats.compilation.fileDependencies], missing: [...stats.compilation.missingDependencies] };
            });
          },
        },
      ],
    }),
  });
  // Nothing learnt about the inputs (a bundler that skipped the hook): build again next time rather than trust it.
  if (read.files.length > 0) keep(file, { key, sources: sourcesOf(read.files), missing: read.missing, code: bundle.code });
  return { code: bundle.code };
}

function readKept(file: string, key: string): CachedBundle | undefined {
  const kept = freshRecord(file, key) as CachedBundle | undefined;
  return kept && Array.isArray(kept.missing) && !kept.missing.some((p) => existsSync(p)) ? kept : undefined;
}

/** One file, renamed into place: workers starting together never read a half-written bundle. */
function keep(file: string, bundle: CachedBundle): void {
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeAtomic(file, JSON.stringify(bundle));
  } catch {
    /* a read-only checkout: bundle again at the next start */
  }
}
