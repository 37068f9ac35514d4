// The `paper:` section names the published figure(s) a setup reproduces: a metric the recipe computes, the paper's
// value and what it is the result of. A mistake in it is one ConfigError naming the file and the field.
import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { ConfigError, parseConfigText, resolveConfigPaths } from '../../../configs/load';
import { readFileSync } from 'node:fs';
import { CONFIGS } from '../../helpers/config';

/** The debate template (no `paper:` of its own here) with the given section appended, loaded as from that file. */
const file = path.join(CONFIGS, 'debate.external.yaml');
const template = readFileSync(file, 'utf8').replace(/^# paper reports:[\s\S]*$/m, '');
const load = (paper: string) => resolveConfigPaths(parseConfigText(`${template}\n${paper}`, file), file);
const errorOf = (paper: string) => {
  try {
    load(paper);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected a ConfigError');
};

const figure = (fields: string) => `paper:\n  citation: Multiagent Finetuning, Table 1\n  figures:\n${fields}`;

describe('config: paper figures', () => {
  it('reads each figure with its unit and direction (percent off and higher better unless said)', () => {
    expect(template).not.toMatch(/^paper:/m);
    const c = load(
      figure(
        '    - {metric: accuracy, value: 51.60, percent: true, setting: "LLaMA-3-8B, MATH, debate"}\n' +
          '    - {metric: avg_tokens_per_debate, value: 900, better: lower, setting: "tokens"}\n',
      ),
    );
    expect(c.paper).toEqual({
      citation: 'Multiagent Finetuning, Table 1',
      figures: [
        { metric: 'accuracy', value: 51.6, percent: true, setting: 'LLaMA-3-8B, MATH, debate', better: 'higher' },
        { metric: 'avg_tokens_per_debate', value: 900, percent: false, setting: 'tokens', better: 'lower' },
      ],
    });
    // Per-agent and per-round metrics are the recipe's too (declared by pattern).
    expect(load(figure('    - {metric: round_1_accuracy, value: 0.5, setting: s}\n')).paper?.figures[0].metric).toBe('round_1_accuracy');
    expect(load('').paper).toBeUndefined();
  });

  it('a metric the recipe does not compute names the figure, the recipe and its metrics', () => {
    const e = errorOf(figure('    - {metric: accuracy, value: 51.6, setting: a}\n    - {metric: win_rate, value: 3, setting: b}\n'));
    expect(e.field).toBe('paper.figures.1.metric');
    expect(e.message).toMatch(
      /debate\.external\.yaml: paper\.figures\.1\.metric: recipe debate computes no metric "win_rate" \(its metrics: .*accuracy/,
    );
  });

  it('a missing or mistyped field, an unknown one, and an empty list each name the field', () => {
    expect(errorOf(figure('    - {metric: accuracy, value: 51.6}\n')).field).toBe('paper.figures.0.setting');
    expect(errorOf(figure('    - {metric: accuracy, value: "51.6 %", setting: s}\n')).field).toBe('paper.figures.0.value');
    expect(errorOf(figure('    - {metric: accuracy, value: 1, setting: s, better: up}\n')).field).toBe('paper.figures.0.better');
    expect(errorOf(figure('    - {metric: accuracy, value: 1, setting: " "}\n')).field).toBe('paper.figures.0.setting');
    const unknown = errorOf(figure('    - {metric: accuracy, value: 1, setting: s, percnt: true}\n'));
    expect(unknown.message).toMatch(/paper\.figures\.0\.percnt: unknown field "percnt" \(did you mean "percent"\?\)/);
    expect(errorOf('paper:\n  citation: x\n  figures: []\n').field).toBe('paper.figures');
    expect(errorOf('paper:\n  figures:\n    - {metric: accuracy, value: 1, setting: s}\n').field).toBe('paper.citation');
  });
});
