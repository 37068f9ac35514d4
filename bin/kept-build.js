// Runs one of the project's TypeScript entry points (the CLI, the simulator, a stage's script) from a build kept in
// node_modules/.cache, made by esbuild and reused while its sources are unchanged. Through tsx, every process
// resolved and loaded its ~340 modules one by one through tsx's loader thread: 0.5 s of CPU before the first line
// ran, `collab-loop --help` 2.4 s and a worker's start 4.4 s. From the kept build they take 0.9 s and 2.3 s. There is
// still no build step to remember: like the workflow bundle (workers/workflow-bundle.ts) the build is made again as
// soon as any file it was made from, or the folder around one, differs (bin/kept-sources.js). COLLAB_LOOP_TSX=1 runs
// through tsx instead; a build esbuild cannot make (a syntax error) also falls back to tsx, whose message is the
// one a developer knows.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { hashFile, sha256, sourcesOf, sourcesUnchanged, writeAtomic } from './kept-sources.js';

const PROJECT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Where builds are kept: the conventional place for a tool's cache in a Node project (find-cache-dir). */
const CACHE = path.join(PROJECT, 'node_modules', '.cache', 'collab-loop', 'entries');
const require = createRequire(import.meta.url);
/** Builds nobody started from for this long are removed when a new one is made (a worker runs for days). */
const PRUNE_AFTER_MS = 7 * 24 * 3600 * 1000;

/** What a build depends on besides its sources: how it builds (this file and kept-sources.js), esbuild, Node, the installed packages
 *  (imports of packages are kept as the paths they resolved to) and tsconfig.json. */
function buildKey(entry, root) {
  return [
    entry,
    hashFile(fileURLToPath(import.meta.url)),
    hashFile(fileURLToPath(new URL('./kept-sources.js', import.meta.url))),
    require('esbuild/package.json').version,
    process.versions.node,
    hashFile(path.join(root, 'node_modules', '.package-lock.json')),
    hashFile(path.join(root, 'tsconfig.json')),
  ].join('\n');
}

function keptBuild(cache, key, record) {
  let kept;
  try {
    kept = JSON.parse(readFileSync(record, 'utf8'));
  } catch {
    return undefined;
  }
  if (kept.key !== key || !existsSync(path.join(cache, kept.dir)) || !sourcesUnchanged(kept.sources)) return undefined;
  return kept;
}

// Each module keeps its own location: the project finds its files, its Python scripts and the workflow sources from
// import.meta (activities/subprocess/node-script.ts, workers/workflow-bundle.ts), so inside the build they name
// the source file, not the bundle.
const keepModuleLocations = {
  name: 'keep-module-locations',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8')
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll('import.meta.filename', JSON.stringify(args.path))
        .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(args.path)));
      return { contents: source, loader: 'ts' };
    });
    // Packages stay outside the build, imported by the file they resolve to: Node's ESM loader wants extensions on
    // deep imports (`@temporalio/common/lib/time`) that the sources leave out.
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === 'resolving' || args.path.startsWith('node:')) return undefined;
      const r = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: 'resolving' });
      return r.errors.length > 0 ? undefined : { path: r.path, external: true };
    });
  },
};

async function build({ root, cache }, entry, key, record) {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: [entry],
    bundle: true,
    splitting: true, // the CLI's commands load their packages when run, not at every start
    format: 'esm',
    platform: 'node',
    target: `node${process.versions.node.split('.')[0]}`,
    outdir: path.join(cache, 'build'), // at the depth of the kept builds: the source maps' relative paths hold
    sourcemap: 'linked',
    metafile: true,
    write: false,
    logLevel: 'silent',
    plugins: [keepModuleLocations],
  });
  const dir = `${path.basename(entry, '.ts')}-${sha256(result.outputFiles.map((f) => f.hash).join()).slice(0, 16)}`;
  const final = path.join(cache, dir);
  if (!existsSync(final)) {
    const tmp = `${final}.${process.pid}.tmp`;
    for (const f of result.outputFiles) {
      const to = path.join(tmp, path.relative(path.join(cache, 'build'), f.path));
      mkdirSync(path.dirname(to), { recursive: true });
      writeFileSync(to, f.contents);
    }
    try {
      renameSync(tmp, final);
    } catch {
      rmSync(tmp, { recursive: true, force: true }); // another process kept the same build first
    }
  }
  const sources = sourcesOf(Object.keys(result.metafile.inputs).map((f) => path.join(root, f)));
  writeAtomic(record, JSON.stringify({ key, dir, sources }));
  prune(cache, dir);
  return { dir };
}

function prune(cache, current) {
  const now = Date.now();
  for (const name of readdirSync(cache)) {
    const p = path.join(cache, name);
    if (name === current || name.endsWith('.json')) continue;
    try {
      if (now - statSync(p).mtimeMs > PRUNE_AFTER_MS) rmSync(p, { recursive: true, force: true });
    } catch {
      /* removed by another process */
    }
  }
}

/** The file to import for `entry` (a .ts path relative to `root`), or undefined: run it through tsx. */
export async function builtEntry(entry, { root = PROJECT, cache = CACHE } = {}) {
  if (process.env.COLLAB_LOOP_TSX === '1') return undefined;
  const key = buildKey(entry, root);
  const record = path.join(cache, `${entry.replaceAll('/', '__')}.json`);
  try {
    mkdirSync(cache, { recursive: true });
    const kept = keptBuild(cache, key, record) ?? (await build({ root, cache }, entry, key, record));
    const dir = path.join(cache, kept.dir);
    try {
      const now = new Date();
      utimesSync(dir, now, now); // in use: not pruned
    } catch {
      /* a cache another user made: still ours to read */
    }
    return path.join(dir, `${path.basename(entry, '.ts')}.js`);
  } catch {
    return undefined; // a read-only checkout, or sources esbuild cannot build: tsx says what is wrong
  }
}

/** Imports `entry` from its kept build, else through tsx. Source maps on, as under tsx: traces name the .ts lines. */
export async function importEntry(entry) {
  process.setSourceMapsEnabled(true);
  const built = await builtEntry(entry);
  if (built) return import(pathToFileURL(built).href);
  const { register } = await import('tsx/esm/api');
  register();
  return import(pathToFileURL(path.join(PROJECT, entry)).href);
}
