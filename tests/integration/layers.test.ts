// The layers read top-down (docs/architecture.md; .dependency-cruiser.cjs states them): an import that runs
// upward fails `npm run lint`. These tests run the same check the lint runs, on the tree and on small trees that
// break one rule each, so a rule that stopped matching would fail here.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../activities/subprocess/node-script';

const DEPCRUISE = path.join(PROJECT_ROOT, 'node_modules', '.bin', 'depcruise');
const CONFIG = path.join(PROJECT_ROOT, '.dependency-cruiser.cjs');
const FOLDERS = ['contracts', 'activities', 'workflows', 'cli', 'configs', 'workers', 'scripts'];

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

function violations(root: string): Violation[] {
  const folders = FOLDERS.filter((f) => spawnSync('test', ['-d', path.join(root, f)]).status === 0);
  const out = execFileSync(DEPCRUISE, [...folders, '--config', CONFIG, '--output-type', 'json'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  return (JSON.parse(out) as { summary: { violations: Violation[] } }).summary.violations;
}

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** A throwaway tree of the given files (path → source) with the project's tsconfig options. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'layers-'));
  made.push(root);
  writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'ESNext', moduleResolution: 'Bundler' } }));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

const rulesBroken = (root: string) => violations(root).map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);

describe('layers', () => {
  it('the project itself has no import that runs upward', () => {
    expect(rulesBroken(PROJECT_ROOT)).toEqual([]);
  });

  it('an activity importing a workflow or the CLI fails, even for a type', () => {
    const root = tree({
      'workflows/types.ts': 'export interface Shape { a: number }\n',
      'cli/format.ts': 'export const fmt = (n: number) => String(n);\n',
      'activities/one.ts': "import type { Shape } from '../workflows/types';\nexport const f = (s: Shape) => s.a;\n",
      'activities/two.ts': "import { fmt } from '../cli/format';\nexport const g = () => fmt(1);\n",
    });
    expect(rulesBroken(root).sort()).toEqual([
      'activities-below-workflows: activities/one.ts → workflows/types.ts',
      'activities-below-workflows: activities/two.ts → cli/format.ts',
    ]);
  });

  it('a workflow may name an activity type but not load activity code', () => {
    const root = tree({
      'activities/run.ts': 'export interface Result { n: number }\nexport const run = async (): Promise<Result> => ({ n: 1 });\n',
      'workflows/typed.ts': "import type { Result } from '../activities/run';\nexport const n = (r: Result) => r.n;\n",
      'workflows/loaded.ts': "import { run } from '../activities/run';\nexport const go = () => run();\n",
    });
    expect(rulesBroken(root)).toEqual(['workflows-import-only-types-from-activities: workflows/loaded.ts → activities/run.ts']);
  });

  it('contracts import nothing above them, and the CLI nothing from scripts/', () => {
    const root = tree({
      'activities/llm.ts': 'export const call = () => 1;\n',
      'contracts/run.ts': "import { call } from '../activities/llm';\nexport const x = call();\n",
      'scripts/bench.ts': 'export const bench = () => 2;\n',
      'cli/main.ts': "import { bench } from '../scripts/bench';\nexport const y = bench();\n",
    });
    expect(rulesBroken(root).sort()).toEqual([
      'cli-not-scripts: cli/main.ts → scripts/bench.ts',
      'contracts-at-the-bottom: contracts/run.ts → activities/llm.ts',
    ]);
  });

  it('a domain folder that looks up the recipe, calls a stage or names one recipe fails; storage never imports artifacts', () => {
    const root = tree({
      'activities/recipes/registry.ts': 'export const RECIPES = [];\n',
      'activities/recipes/runtime.ts': "import { RECIPES } from '../layers/registry';\nexport const recipeOf = () => RECIPES[0];\n",
      'activities/recipes/coral/metrics.ts': 'export const accuracy = () => 1;\n',
      'activities/stages/run-shard.ts': "import { recipeOf } from '../recipes/runtime';\nexport const runShard = () => recipeOf();\n",
      'activities/llm/roles.ts': "import { recipeOf } from '../recipes/runtime';\nexport const roles = () => recipeOf();\n",
      'activities/report/html.ts':
        "import { runShard } from '../stages/run-shard';\nimport { accuracy } from '../recipes/coral/metrics';\nexport const page = () => [runShard(), accuracy()];\n",
      'activities/artifacts/store.ts': 'export class ArtifactStore {}\n',
      'activities/storage/run-storage.ts':
        "import { ArtifactStore } from '../artifacts/store';\nexport const open = () => new ArtifactStore();\n",
    });
    expect(rulesBroken(root).sort()).toEqual([
      'domains-name-no-recipe: activities/report/html.ts → activities/recipes/coral/metrics.ts',
      'stages-on-top-of-activities: activities/report/html.ts → activities/stages/run-shard.ts',
      'stages-resolve-the-recipe: activities/llm/roles.ts → activities/recipes/runtime.ts',
      'storage-below-artifacts: activities/storage/run-storage.ts → activities/artifacts/store.ts',
    ]);
  });
});
