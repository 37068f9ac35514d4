// The CLIP screenshot scorer end to end, with a tiny randomly initialised CLIP made locally (tests/helpers/tiny-model.ts):
// a config naming the checkpoint → the recipe's scoring on the sandbox queue → the scoring services → one long-lived
// Python process (activities/render/clip_embed.py) → cosines. Pages are rendered by real Chromium. A random CLIP
// measures nothing semantic, so only what holds for any CLIP is asserted: identical pictures give 1, scores are
// cosines, and one process serves every image.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadConfig } from '../../../../configs/load';
import type { LoopConfig } from '../../../../contracts/config';
import { scoringServices } from '../../../../activities/generation/services';
import { storeFor } from '../../../../activities/artifacts/store';
import { closeSharedBrowserPool } from '../../../../activities/render/browser-pool';
import { clipScorerStats, clipSimilarity, closeClipScorers } from '../../../../activities/render/clip-similarity';
import { recipeRuntime, type ScoringServices } from '../../../../activities/recipes/runtime';
import type { ImageSimilarity } from '../../../../activities/render/image-similarity';
import { isAlive } from '../../../../activities/subprocess/process-group';
import { tempStateDir, testConfigRaw } from '../../../helpers/config';
import { tinyClip } from '../../../helpers/tiny-model';

/** Small pages of flat blocks (no text: glyphs depend on the machine's fonts). */
const page = (o: { bg: string; bar: string; blocks: number }) =>
  `<!doctype html><html><body style="margin:0;background:${o.bg}">
  <div style="height:80px;background:${o.bar}"></div>
  <div style="display:flex;gap:24px;padding:32px">${'<div style="width:160px;height:120px;background:#94a3b8"></div>'.repeat(o.blocks)}</div>
  </body></html>`;
const PAGES = {
  light: page({ bg: '#ffffff', bar: '#1e40af', blocks: 3 }),
  recoloured: page({ bg: '#ffffff', bar: '#b91c1c', blocks: 3 }),
  dark: page({ bg: '#0f172a', bar: '#f59e0b', blocks: 1 }),
};

describe('CLIP similarity from a local checkpoint (tiny random CLIP): config → scoring → one Python process', () => {
  let dir: string;
  let model: string;
  let config: LoopConfig;
  let services: ScoringServices;
  let similarity: ImageSimilarity;
  const shots: Record<string, Buffer> = {};

  beforeAll(async () => {
    const clip = await tinyClip();
    dir = tempStateDir('collab-loop-clip-');
    const tasks = path.join(dir, 'tasks.jsonl');
    writeFileSync(
      tasks,
      ['light', 'dark']
        .map((id) => JSON.stringify({ id, problem_description: `a ${id} page`, ground_truth: PAGES[id as keyof typeof PAGES] }))
        .join('\n'),
    );
    // The checkpoint is named relative to the config file, as a user writes it.
    const file = path.join(dir, 'configs', 'clip.yaml');
    mkdirSync(path.dirname(file));
    const raw = testConfigRaw(dir, (c) => {
      c.recipe = { name: 'colbench-html', evalTasks: tasks, similarity: { kind: 'clip', model: path.relative(path.dirname(file), clip) } };
      delete c.trainer;
      c.iterations = 1;
    });
    writeFileSync(file, stringify(raw));
    config = loadConfig(file).config;
    model = clip;
    services = scoringServices(storeFor(config));
    similarity = services.similarity(config.recipe.name === 'colbench-html' ? config.recipe.similarity : { kind: 'weight-free' });
    for (const [k, html] of Object.entries(PAGES)) shots[k] = await services.render(html);
  });
  afterAll(async () => {
    await closeClipScorers();
    await closeSharedBrowserPool();
  });

  it('resolves the checkpoint against the config file', () => {
    expect(config.recipe).toMatchObject({ name: 'colbench-html', similarity: { kind: 'clip', model } });
  });

  it('scores a shard of html episodes by CLIP cosine: the reference page itself ~1, another page lower', async () => {
    const ref = async (png: Buffer) => services.saveImage(png);
    const records = [
      { taskId: 'light', answer: await ref(shots.light) },
      { taskId: 'light', answer: await ref(shots.recoloured) },
      { taskId: 'dark', answer: await ref(shots.light) },
      { taskId: 'dark', answer: null }, // no page: nothing to compare (compat fixed), no image embedded
    ];
    const scored = (await (
      await recipeRuntime(config)
    ).scoreRecords!('eval', records, services)) as Array<{
      score: { similarity: number; answered: boolean };
    }>;
    const s = scored.map((r) => r.score.similarity);
    expect(s[0]).toBeGreaterThan(0.9999);
    expect(s[1]).toBeLessThan(0.9999);
    expect(s[2]).toBeLessThan(0.9999);
    expect(scored[3].score).toMatchObject({ similarity: 0, answered: false });
    const stats = clipScorerStats(model)!;
    expect(stats).toMatchObject({ starts: 1, served: 6, dim: 32 }); // three pairs compared, two images each
    expect(isAlive(stats.pid)).toBe(true);
  });

  it('returns cosines: in [-1, 1], symmetric, 1 for the same picture — all from the same process', async () => {
    const before = clipScorerStats(model)!;
    const pairs: Array<[string, string]> = [
      ['light', 'light'],
      ['light', 'recoloured'],
      ['recoloured', 'light'],
      ['light', 'dark'],
      ['dark', 'dark'],
    ];
    const cos = await Promise.all(pairs.map(([a, b]) => similarity(shots[a], shots[b])));
    for (const c of cos) {
      expect(c).toBeGreaterThanOrEqual(-1 - 1e-6);
      expect(c).toBeLessThanOrEqual(1 + 1e-6);
    }
    expect(cos[0]).toBeCloseTo(1, 5);
    expect(cos[4]).toBeCloseTo(1, 5);
    expect(cos[1]).toBeCloseTo(cos[2], 5);
    expect(clipScorerStats(model)).toEqual({ ...before, served: before.served + 2 * pairs.length });
  });

  it('an unreadable image fails its own pair; the process goes on', async () => {
    const before = clipScorerStats(model)!;
    await expect(similarity(Buffer.from('not a png'), shots.light)).rejects.toThrow(`CLIP scorer (model ${model}): cannot read a PNG`);
    expect(await similarity(shots.dark, shots.dark)).toBeCloseTo(1, 5);
    expect(clipScorerStats(model)).toEqual({ ...before, served: before.served + 2 });
  });

  it('a process that died is replaced on the next pair', async () => {
    const { pid, starts } = clipScorerStats(model)!;
    process.kill(pid, 'SIGKILL');
    while (isAlive(pid)) await new Promise((r) => setTimeout(r, 20)); // reaped: the scorer has seen the exit
    expect(await clipSimilarity(model, shots.light, shots.light)).toBeCloseTo(1, 5);
    const now = clipScorerStats(model)!;
    expect(now.starts).toBe(starts + 1);
    expect(now.pid).not.toBe(pid);
    expect(now.served).toBe(2);
  });

  it('a bad checkpoint: a missing directory fails before Python starts; one Python cannot load names the model', async () => {
    const { starts } = clipScorerStats(model)!;
    const missing = path.join(dir, 'no-such-clip');
    await expect(clipSimilarity(missing, shots.light, shots.dark)).rejects.toThrow(`CLIP scorer: ${missing} is not a directory`);
    expect(clipScorerStats(model)!.starts).toBe(starts);
    // The right files with broken weights: the config check cannot tell, the Python process exits at load.
    const broken = path.join(dir, 'broken-clip');
    mkdirSync(broken);
    writeFileSync(path.join(broken, 'config.json'), JSON.stringify({ model_type: 'clip' }));
    writeFileSync(path.join(broken, 'preprocessor_config.json'), '{}');
    writeFileSync(path.join(broken, 'model.safetensors'), 'not weights');
    const err = await clipSimilarity(broken, shots.light, shots.dark).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toContain(`CLIP scorer (activities/render/clip_embed.py, model ${broken}) exited (code 2)`);
    expect((err as Error).message).toContain(`cannot load a CLIP model from ${broken}`);
  });

  it('the default measure stays the weight-free one', async () => {
    const weightFree = scoringServices(storeFor({ stateDir: path.join(dir, 'other') })).similarity({ kind: 'weight-free' });
    const before = clipScorerStats(model)!;
    expect(await weightFree(shots.light, shots.light)).toBe(1);
    expect(clipScorerStats(model)).toEqual(before);
  });
});
