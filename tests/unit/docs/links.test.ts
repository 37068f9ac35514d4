// The manual is README.md plus docs/: a newcomer follows its links, so every relative link and anchor must lead
// somewhere, and the README must stay a five-minute read (at most 200 lines, none over 200 characters; the pages
// below it keep the same line limit, except those a script generates).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../../activities/subprocess/node-script';

const MAX_README_LINES = 200;
const MAX_LINE = 200;
/** Pages written by a script, whose lines are as long as their generator makes them. */
const GENERATED = ['docs/fidelity.md', 'docs/configuration.md'];

function markdownPages(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(path.join(PROJECT_ROOT, dir), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith('.md') ? [path.join(dir, e.name)] : [],
    );
  return ['README.md', ...walk('docs')];
}

const read = (page: string) => readFileSync(path.join(PROJECT_ROOT, page), 'utf8');

/** Lines outside fenced code blocks, with their numbers. */
function proseLines(text: string): { line: string; n: number }[] {
  let fenced = false;
  return text.split('\n').flatMap((line, i) => {
    if (line.startsWith('```')) {
      fenced = !fenced;
      return [];
    }
    return fenced ? [] : [{ line, n: i + 1 }];
  });
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered -1, -2, … */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const { line } of proseLines(text)) {
    const heading = /^#{1,6} (.*)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = heading
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    out.add(count ? `${base}-${count}` : base);
  }
  return out;
}

/** Relative link targets of a page (inline code and external URLs left out), with their line numbers. */
function relativeLinks(text: string): { target: string; n: number }[] {
  return proseLines(text).flatMap(({ line, n }) =>
    [...line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
      .map((m) => m[1])
      .filter((t) => !/^[a-z][a-z+.-]*:/i.test(t))
      .map((target) => ({ target, n })),
  );
}

function brokenLinks(page: string): string[] {
  return relativeLinks(read(page)).flatMap(({ target, n }) => {
    const [file, anchor] = target.split('#', 2);
    const dest = file ? path.normalize(path.join(path.dirname(page), decodeURI(file))) : page;
    const where = `${page}:${n}: ${target}`;
    if (!existsSync(path.join(PROJECT_ROOT, dest))) return [`${where} (no file ${dest})`];
    if (anchor === undefined || !dest.endsWith('.md')) return [];
    return anchors(read(dest)).has(anchor) ? [] : [`${where} (no heading with the anchor #${anchor} in ${dest})`];
  });
}

describe('the README and docs/', () => {
  const pages = markdownPages();

  it('has a README a newcomer reads in five minutes', () => {
    expect(read('README.md').replace(/\n$/, '').split('\n').length).toBeLessThanOrEqual(MAX_README_LINES);
  });

  it('has no line over 200 characters outside generated pages', () => {
    const long = pages
      .filter((p) => !GENERATED.includes(p))
      .flatMap((p) =>
        read(p)
          .split('\n')
          .flatMap((l, i) => ([...l].length > MAX_LINE ? [`${p}:${i + 1} (${[...l].length})`] : [])),
      );
    expect(long).toEqual([]);
  });

  it('has every relative link and anchor leading somewhere', () => {
    expect(pages.flatMap(brokenLinks)).toEqual([]);
  });

  it('computes anchors as GitHub does, so a broken one is caught', () => {
    const text = '# Top\n## Which Temporal server — `cli/temporal-config.ts`\n## Top\n```\n# not a heading\n```\n';
    expect([...anchors(text)]).toEqual(['top', 'which-temporal-server--clitemporal-configts', 'top-1']);
    expect(relativeLinks('[a](#top) `[b](nowhere.md)` [c](https://example.org) [d](docs/x.md#y)').map((l) => l.target)).toEqual([
      '#top',
      'docs/x.md#y',
    ]);
  });
});
