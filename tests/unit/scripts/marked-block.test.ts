// `npm run bench` keeps docs/benchmarks.md current by rewriting each section's marked block: the rewrite must touch
// that block alone and refuse a page where the block is missing or ambiguous rather than write somewhere else.
import { describe, expect, it } from 'vitest';
import { markedBlockNames, replaceMarkedBlock } from '../../../scripts/marked-block';

const page = [
  '# Benchmarks',
  '',
  'Prose the author wrote.',
  '<!-- bench:coral -->',
  'old coral figures',
  'more old lines',
  '<!-- /bench:coral -->',
  '',
  '<!-- bench:debate -->',
  'old debate figures',
  '<!-- /bench:debate -->',
  'Closing prose.',
].join('\n');

describe('replaceMarkedBlock', () => {
  it('replaces the lines between the markers and keeps everything else', () => {
    const out = replaceMarkedBlock(page, 'bench:coral', 'new line 1\nnew line 2\n');
    expect(out).toBe(page.replace('old coral figures\nmore old lines', 'new line 1\nnew line 2'));
  });

  it('gives the same page when the same figures are written twice', () => {
    const once = replaceMarkedBlock(page, 'bench:debate', 'figures');
    expect(replaceMarkedBlock(once, 'bench:debate', 'figures')).toBe(once);
  });

  it('empties a block when the body is empty', () => {
    expect(replaceMarkedBlock(page, 'bench:debate', '')).toContain('<!-- bench:debate -->\n<!-- /bench:debate -->');
  });

  it('refuses a missing, repeated or unclosed block, naming it', () => {
    expect(() => replaceMarkedBlock(page, 'bench:toa', 'x')).toThrow('"<!-- bench:toa -->"');
    expect(() => replaceMarkedBlock(`${page}\n<!-- bench:coral -->\n<!-- /bench:coral -->`, 'bench:coral', 'x')).toThrow(
      'found 2 opening and 2 closing markers',
    );
    expect(() => replaceMarkedBlock('<!-- bench:x -->\ntext', 'bench:x', 'y')).toThrow('found 1 opening and 0 closing markers');
    expect(() => replaceMarkedBlock('<!-- /bench:x -->\n<!-- bench:x -->', 'bench:x', 'y')).toThrow('in the wrong order');
  });
});

describe('markedBlockNames', () => {
  it('lists the blocks of a prefix', () => {
    expect(markedBlockNames(page, 'bench:')).toEqual(['bench:coral', 'bench:debate']);
  });
});
