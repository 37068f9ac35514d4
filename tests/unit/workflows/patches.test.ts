// Every patch the workflows ask is in the registry (workflows/patches.ts), by its entry: a string id typed at a call
// site, an id missing from the registry, an entry asked nowhere, or a deprecated entry still asked with patched()
// would let a patch be changed or retired without the record of which runs and histories need it.
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PATCHES } from '../../../workflows/patches';
import { PROJECT_ROOT } from '../../../activities/subprocess/node-script';
import { HISTORIES } from '../../helpers/recorded-configs';

const WORKFLOWS = path.join(PROJECT_ROOT, 'workflows');

/** Each patched( / deprecatePatch( call in the workflows' code (comments left out) with its argument as written. */
function patchCalls(): Array<{ file: string; fn: string; arg: string }> {
  const files = readdirSync(WORKFLOWS, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  return files.flatMap((file) => {
    const code = readFileSync(path.join(WORKFLOWS, file), 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\/\/.*$/gm, '');
    return [...code.matchAll(/\b(patched|deprecatePatch)\(([^()]*)\)/g)].map((m) => ({ file, fn: m[1], arg: m[2].trim() }));
  });
}

/** The registry entry a call names, or why it names none. */
const entryOf = (arg: string): string | { wrong: string } => {
  const m = /^PATCHES\.(\w+)\.id$/.exec(arg);
  if (!m) return { wrong: `${arg} is not PATCHES.<name>.id` };
  return m[1] in PATCHES ? m[1] : { wrong: `${m[1]} is not in PATCHES` };
};

describe('the patch registry', () => {
  const calls = patchCalls();

  it('finds the calls', () => {
    expect(calls.length).toBeGreaterThanOrEqual(Object.keys(PATCHES).length);
  });

  it('names every call by a registry entry, asked as its stage says', () => {
    const wrong = calls.flatMap(({ file, fn, arg }) => {
      const e = entryOf(arg);
      if (typeof e !== 'string') return [`${file}: ${fn}(${arg}): ${e.wrong}`];
      const expected = PATCHES[e as keyof typeof PATCHES].stage === 'deprecated' ? 'deprecatePatch' : 'patched';
      return fn === expected ? [] : [`${file}: ${fn}(${arg}): ${e} is ${PATCHES[e as keyof typeof PATCHES].stage}, asked with ${expected}`];
    });
    expect(wrong).toEqual([]);
  });

  it('has no entry that no call asks', () => {
    const asked = new Set(calls.map(({ arg }) => entryOf(arg)));
    expect(Object.keys(PATCHES).filter((name) => !asked.has(name))).toEqual([]);
  });

  it('has distinct ids, and names recorded histories that exist', () => {
    const ids = Object.values(PATCHES).map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const missing = Object.values(PATCHES).flatMap((p) => p.oldBranchNeededBy.filter((f) => !existsSync(path.join(HISTORIES, f))));
    expect(missing).toEqual([]);
  });
});
