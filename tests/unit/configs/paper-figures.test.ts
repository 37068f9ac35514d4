// The real-endpoint templates (configs/*.external.yaml) are the paper setups: each names the paper's headline figure
// in a `paper:` section, as a metric its recipe computes and with a number docs/fidelity.md quotes from the paper —
// or says in a comment why it names none.
import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../../configs/load';
import { recipeDefinition } from '../../../activities/recipes/registry';
import { declaresMetric } from '../../../activities/report/metric-kinds';
import { CONFIGS } from '../../helpers/config';

const TEMPLATES = readdirSync(CONFIGS).filter((f) => f.endsWith('.external.yaml'));

describe('paper figures in the templates', () => {
  it.each(TEMPLATES)('%s: a metric its recipe computes, a number its fidelity rows quote', (name) => {
    const file = path.join(CONFIGS, name);
    const { config } = loadConfig(file);
    const recipe = recipeDefinition(config.recipe.name);
    if (!config.paper) {
      // None only where the paper's number is not known: the file says why.
      expect(readFileSync(file, 'utf8')).toMatch(/^# No `paper:` figure: /m);
      return;
    }
    const quoted = recipe.fidelity.reproduces.join('\n');
    for (const f of config.paper.figures) {
      expect(declaresMetric(recipe.metricKinds, f.metric), `${name}: ${f.metric}`).toBe(true);
      // Not made up: docs/fidelity.md (the recipe's fidelity.ts) quotes this very number.
      // (51.6 is quoted as 51.60: trailing zeros after a decimal point are the same number)
      const digits = `${String(f.value).replace('.', '\\.')}${Number.isInteger(f.value) ? '' : '0*'}`;
      expect(quoted, `${name}: ${f.metric} ${f.value}`).toMatch(new RegExp(`(^|[^\\d.])${digits}(?![\\d])`));
    }
  });

  it('the recipes whose paper prints a headline figure for the template’s setup name it', () => {
    const named = TEMPLATES.filter((name) => loadConfig(path.join(CONFIGS, name)).config.paper).sort();
    expect(named).toEqual(['colbench-code.external.yaml', 'coral.external.yaml', 'debate.external.yaml', 'toa.external.yaml']);
  });
});
