// docs/configuration.md is the reference a user reads to write a config: it must be what the schema accepts now,
// and every field must say what it is for (a field added without a description fails here).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { configSections, renderConfigDoc, undescribed } from '../../../configs/config-doc';
import { configPage } from '../../../scripts/write-config-doc';
import { stalePage } from '../../../scripts/generated-page';

describe('docs/configuration.md', () => {
  it('is what `npm run docs:config` writes from the schema now', () => {
    expect(readFileSync(configPage.file, 'utf8'), stalePage(configPage)).toBe(configPage.render());
  });

  it('a page that differs is stale, and the message names the command that rewrites it', () => {
    expect(stalePage({ ...configPage, render: () => 'another page' })).toBe(
      'docs/configuration.md is stale: run `npm run docs:config` and commit it',
    );
  });

  it('every field of the config schema, and every variant of its unions, has a description', () => {
    expect(undescribed(configSections()), 'add .meta({ description }) where the field is declared').toEqual([]);
  });

  it('finds a field or a variant without a description', () => {
    const schema = z.strictObject({
      described: z.number().meta({ description: 'Said.' }),
      bare: z.string(),
      kinds: z
        .discriminatedUnion('kind', [
          z.strictObject({ kind: z.literal('a') }).meta({ description: 'Variant a.' }),
          z.strictObject({ kind: z.literal('b'), inner: z.boolean() }),
        ])
        .meta({ description: 'A union.' }),
    });
    expect(undescribed(configSections(schema))).toEqual(['bare', 'kinds.kind: b', 'kinds.inner']);
  });

  it('prints type, bounds, default and whether a field is required from the schema, by full path', () => {
    const schema = z.strictObject({
      section: z
        .strictObject({
          count: z.number().int().positive().default(3).meta({ description: 'How many.' }),
          share: z.number().gt(0).max(1).meta({ description: 'A share.' }),
          mode: z.enum(['x', 'y']).optional().meta({ description: 'Which.' }),
          roles: z
            .record(z.string(), z.strictObject({ from: z.string().meta({ description: 'Start.' }) }))
            .meta({ description: 'By role.' }),
        })
        .optional()
        .meta({ description: 'A section.' }),
    });
    const page = renderConfigDoc(schema);
    expect(page).toContain('## `section`\n\nA section.\n');
    expect(page).toContain('| `section.count` | integer > 0 | `3` | optional | How many. |');
    expect(page).toContain('| `section.share` | number in (0, 1] |  | required | A share. |');
    expect(page).toContain('| `section.mode` | `x` \\| `y` |  | optional | Which. |');
    expect(page).toContain('| `section.roles.<name>.from` | string |  | required | Start. |');
  });

  it('leaves out the fields kept only to say where they moved, and starts by saying how it is generated', () => {
    const page = configPage.render();
    expect(page).not.toContain('`recipe.extractor`');
    expect(page).toContain('`recipe.extractorMaxTokens`');
    expect(page.split('\n').slice(0, 3).join('\n')).toContain('by `npm run docs:config`');
  });
});
