// Runs one of the project's TypeScript entry points (the CLI, the simulator, a stage's script) from a build kept in
// node_modules/.cache, made by esbuild and reused while its sources are unchanged. Through tsx, every process
// resolved and loaded its ~340 modules one by one through tsx's loader thread: 0.5 s of CPU before the first line
// ran, `collab-loop --help` 2.4 s and a worker's start 4.4 s. From the kept build they take 1.1 s and 2.3 s. There is
// still no build step to remember: like the workflow bundle (workers/workflow-bundle.ts) the build is made again as
// soon as any file it was made from, or the folder around one, differs (bin/kept-sources.js). COLLAB_LOOP_TSX=1 runs
// through tsx instead, as does a build esbuild cannot make (a syntax error: tsx's message is the one a developer
// knows) or a cache this user cannot write. The bundle's modules are evaluated as tsx would evaluate them as long as
// there is no import cycle (`npm run lint` fails on one): esbuild turns top-level const into var.
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freshRecord, hashFile, sha256, sourcesOf, tempName, writeAtomic } from './kept-sources.js';

export const PROJECT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Where builds are kept: the conventional place for a tool's cache in a Node project (find-cache-dir). */
const CACHE = path.join(PROJECT, 'node_modules', '.cache', 'collab-loop', 'entries');
const require = createRequire(import.meta.url);
/** A build no process has used for this long is removed when another is made. A process marks its build as used when
 *  it starts and every hour while it runs: a worker up for weeks still loads a recipe's chunk the first time it
 *  needs it. */
const PRUNE_AFTER_MS = 7 * 24 * 3600 * 1000;
const STILL_USED_EVERY_MS = 3600 * 1000;

/** What a build depends on besides its sources: the checkout (builds name its files by absolute path, and a copy or a
 *  worktree may share node_modules), how it builds (this file and kept-sources.js), esbuild, Node, the installed
 *  packages (imports of packages are kept as the paths they resolved to) and tsconfig.json. */
function buildKey(entry, root, real) {
  return [
    real,
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
  const kept = freshRecord(record, key);
  return kept && existsSync(path.join(cache, kept.dir, kept.main)) ? kept : undefined;
}

/** Each module keeps its own location: the project finds its files, its Python scripts and the workflow sources from
 *  import.meta (activities/subprocess/node-script.ts, workers/workflow-bundle.ts), so inside the build they name the
 *  source file, not the bundle. `read` gets the hash of each text as it was built. */
const keepModuleLocations = (read) => ({
  name: 'keep-module-locations',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      read.set(args.path, sha256(text));
      const source = text
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
});

async function build({ root, cache }, entry, key, record) {
  const esbuild = await import('esbuild');
  const read = new Map();
  let result;
  try {
    result = await esbuild.build({
      absWorkingDir: root,
      entryPoints: [entry],
      bundle: true,
      splitting: true, // the CLI's commands load their packages when run, not at every start
      format: 'esm',
      platform: 'node',
      target: `node${process.versions.node.split('.')[0]}`,
      conditions: [], // package exports resolved with Node's own conditions (esbuild adds "module" by default)
      outdir: path.join(cache, 'build'), // at the depth of the kept builds: the source maps' relative paths hold
      sourcemap: 'linked',
      metafile: true,
      write: false,
      logLevel: 'silent',
      plugins: [keepModuleLocations(read)],
    });
  } finally {
    await esbuild.stop(); // its service process would otherwise live as long as a worker does
  }
  const main = `${path.basename(entry, '.ts')}.js`;
  const dir = `${path.basename(entry, '.ts')}-${sha256(result.outputFiles.map((f) => f.hash).join()).slice(0, 16)}`;
  const final = path.join(cache, dir);
  if (!existsSync(path.join(final, main))) {
    const tmp = tempName(final);
    try {
      for (const f of result.outputFiles) {
        const to = path.join(tmp, path.relative(path.join(cache, 'build'), f.path));
        mkdirSync(path.dirname(to), { recursive: true });
        writeFileSync(to, f.contents);
      }
      renameSync(tmp, final);
    } catch (e) {
      if (!existsSync(path.join(final, main))) throw e; // else another process kept the same build first
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  const sources = sourcesOf(
    Object.keys(result.metafile.inputs).map((f) => path.join(root, f)),
    read,
  );
  writeAtomic(record, JSON.stringify({ key, dir, main, sources }));
  prune(cache, dir);
  return { dir, main };
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

const markUsed = (dir) => {
  try {
    const now = new Date();
    utimesSync(dir, now, now);
  } catch {
    /* a cache another user made: still ours to read */
  }
};

/** The file to import for `entry` (a .ts path relative to `root`), or undefined: run it through tsx. */
export async function builtEntry(entry, { root = PROJECT, cache = CACHE } = {}) {
  if (process.env.COLLAB_LOOP_TSX === '1') return undefined;
  try {
    const real = realpathSync(root);
    const key = buildKey(entry, root, real);
    const record = path.join(cache, `${entry.replaceAll('/', '__')}-${sha256(real).slice(0, 8)}.json`);
    let kept = keptBuild(cache, key, record);
    if (!kept) {
      mkdirSync(cache, { recursive: true });
      accessSync(cache, constants.W_OK); // a cache this user cannot write: no build at every start, tsx at once
      kept = await build({ root, cache }, entry, key, record);
    }
    const dir = path.join(cache, kept.dir);
    markUsed(dir);
    setInterval(() => markUsed(dir), STILL_USED_EVERY_MS).unref();
    return path.join(dir, kept.main);
  } catch {
    return undefined; // no esbuild, a read-only checkout, or sources esbuild cannot build: tsx says what is wrong
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
