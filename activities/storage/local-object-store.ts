// The default store: a directory on this machine. Writes are write-tmp + rename, so a process killed mid-write never
// leaves a half file under a final name.
import { copyFile, mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ListOptions, ObjectStore } from './object-store';

export class LocalObjectStore implements ObjectStore {
  readonly location: string;
  constructor(readonly root: string) {
    this.location = pathToFileURL(path.resolve(root)).href;
  }

  pathOf(key: string): string {
    return path.join(this.root, ...key.split('/'));
  }

  uriOf(key: string): string {
    return pathToFileURL(path.resolve(this.pathOf(key))).href;
  }

  keyOf(uri: string): string | undefined {
    if (!uri.startsWith('file:')) return undefined;
    const rel = path.relative(path.resolve(this.root), fileURLToPath(uri));
    return rel.startsWith('..') || path.isAbsolute(rel) ? undefined : rel.split(path.sep).join('/');
  }

  async exists(key: string): Promise<boolean> {
    return stat(this.pathOf(key)).then(
      () => true,
      () => false,
    );
  }

  async put(key: string, data: Buffer | string): Promise<void> {
    await writeAtomic(this.pathOf(key), (tmp) => writeFile(tmp, data));
  }

  async get(key: string): Promise<Buffer | undefined> {
    return readFile(this.pathOf(key)).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return undefined;
      throw e;
    });
  }

  async putFile(key: string, file: string, opts: { onProgress?: (bytesDone: number) => void } = {}): Promise<void> {
    await writeAtomic(this.pathOf(key), (tmp) => copyFile(file, tmp));
    opts.onProgress?.((await stat(file)).size);
  }

  async getFile(key: string, dest: string): Promise<boolean> {
    if (!(await this.exists(key))) return false;
    await writeAtomic(dest, (tmp) => copyFile(this.pathOf(key), tmp));
    return true;
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<string[]> {
    const out: string[] = [];
    const walk = async (dir: string, rel: string): Promise<void> => {
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const e of entries) {
        const k = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) await walk(path.join(dir, e.name), k);
        else if (k.startsWith(prefix) && !e.name.endsWith('.tmp')) out.push(k);
      }
    };
    // Only under the prefix's directory: the root is a whole state dir (logs, trainer work dirs, checkpoints).
    const base = prefix.slice(0, Math.max(0, prefix.lastIndexOf('/')));
    await walk(base ? this.pathOf(base) : this.root, base);
    return opts.limit === undefined ? out : out.sort().slice(0, opts.limit);
  }
}

/** A name beside `file` no other writer (process or concurrent call) uses, for writing before a rename. */
export const tmpPathBeside = (file: string): string => `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;

/** Writes through a unique temporary name beside the target, then renames it into place. */
export async function writeAtomic(file: string, write: (tmp: string) => Promise<void>): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = tmpPathBeside(file);
  await write(tmp);
  await rename(tmp, file);
}
