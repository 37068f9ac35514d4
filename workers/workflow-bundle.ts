// The workflow bundle a worker runs, built once per set of sources. Webpack takes seconds of CPU per worker start;
// Temporal's production advice is to bundle ahead of time (samples-typescript production/src/scripts/
// build-workflow-bundle.ts). Bundling ahead needs a build step to remember and can go stale; instead the bundle is
// kept beside the files webpack read to make it, with their hashes, and is reused only while every one of them is
// unchanged and every path webpack probed and found missing is still missing (a new file there could change what
// an import resolves to). So a stale bundle is never used: an edited workflow rebundles at the next worker start.
import { bundleWorkflowCode, type BundleOptions, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PROJECT_ROOT } from '../activities/subprocess/node-script';

const require = createRequire(import.meta.url);

/** Where bundles are kept: the conventional place for a tool's cache in a Node project (find-cache-dir). */
export const BUNDLE_CACHE_DIR = path.join(PROJECT_ROOT, 'node_modules', '.cache', 'collab-loop', 'workflow-bundles');

interface CachedBundle {
  /** What the bundle was built from besides its files: the entry and the bundler's version. */
  key: string;
  /** Every file webpack read, with its sha256. */
  files: Record<string, string>;
  /** Every path webpack probed and found missing. */
  missing: string[];
  code: string;
}

const sha256 = (file: string): string | undefined => {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex');
  } catch {
    return undefined;
  }
};

const bundlerVersion = (): string => (require('@temporalio/worker/package.json') as { version: string }).version;

/** The bundle of `workflowsPath`: the kept one while its sources are unchanged, else a new one (then kept). */
export async function keptWorkflowBundle(
  workflowsPath: string,
  logger: BundleOptions['logger'],
  cacheDir = BUNDLE_CACHE_DIR,
): Promise<{ code: string }> {
  const key = `${workflowsPath}\n${bundlerVersion()}`;
  const file = path.join(cacheDir, `${createHash('sha256').update(key).digest('hex').slice(0, 16)}.json`);
  const kept = readKept(file, key);
  if (kept) {
    logger?.debug(`workflow bundle reused: ${file} (${Object.keys(kept.files).length} source files unchanged since it was built)`);
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
  const files: Record<string, string> = {};
  for (const f of read.files) {
    const h = sha256(f);
    if (h !== undefined) files[f] = h;
  }
  // Nothing learnt about the inputs (a bundler that skipped the hook): build again next time rather than trust it.
  if (Object.keys(files).length > 0) keep(file, { key, files, missing: read.missing, code: bundle.code });
  return { code: bundle.code };
}

function readKept(file: string, key: string): CachedBundle | undefined {
  let kept: CachedBundle;
  try {
    kept = JSON.parse(readFileSync(file, 'utf8')) as CachedBundle;
  } catch {
    return undefined; // none yet, or unreadable: build it
  }
  if (kept.key !== key) return undefined;
  for (const [f, h] of Object.entries(kept.files)) if (sha256(f) !== h) return undefined;
  if (kept.missing.some((p) => existsSync(p))) return undefined;
  return kept;
}

/** One file, renamed into place: workers starting together never read a half-written bundle. */
function keep(file: string, bundle: CachedBundle): void {
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(bundle));
    renameSync(tmp, file);
  } catch {
    /* a read-only checkout: bundle again at the next start */
  }
}
