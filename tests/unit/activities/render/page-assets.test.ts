// Which URLs the page renderer answers from memory, and with what: the pinned Tailwind build for the CDN URLs that
// name it, exact-size flat placeholders for picsum.photos pictures, nothing for anything else.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { webPageAsset } from '../../../../activities/render/page-renderer';

const svgSize = (url: string) => {
  const m = /<svg [^>]*width="(\d+)" height="(\d+)"/.exec(String(webPageAsset(url)?.body));
  return m ? [Number(m[1]), Number(m[2])] : undefined;
};
const fill = (url: string) => /fill="(#[0-9a-f]{6})"/.exec(String(webPageAsset(url)?.body))?.[1];

describe('page renderer assets', () => {
  it('serves the npm tailwindcss 2.2.19 build for the CDN URLs that resolve to it', () => {
    const min = readFileSync('node_modules/tailwindcss-2/dist/tailwind.min.css', 'utf8');
    expect(min.startsWith('/*! tailwindcss v2.2.19')).toBe(true);
    for (const url of [
      'https://cdn.jsdelivr.net/npm/tailwindcss@2.2.19/dist/tailwind.min.css',
      'https://cdn.jsdelivr.net/npm/tailwindcss@^2/dist/tailwind.min.css',
      'https://cdn.jsdelivr.net/npm/tailwindcss@%5E2.2/dist/tailwind.min.css',
      'https://unpkg.com/tailwindcss@2.2/dist/tailwind.min.css',
    ])
      expect(webPageAsset(url), url).toEqual({ contentType: 'text/css; charset=utf-8', body: min });
    const full = webPageAsset('https://unpkg.com/tailwindcss@~2.2.19/dist/tailwind.css');
    expect(full?.body).toBe(readFileSync('node_modules/tailwindcss-2/dist/tailwind.css', 'utf8'));
  });

  it('answers the Play CDN, any version or query, with a script that inserts the same build', () => {
    const min = readFileSync('node_modules/tailwindcss-2/dist/tailwind.min.css', 'utf8');
    for (const url of [
      'https://cdn.tailwindcss.com/',
      'https://cdn.tailwindcss.com/3.4.16',
      'https://cdn.tailwindcss.com/?plugins=forms,typography',
    ]) {
      const asset = webPageAsset(url);
      expect(asset?.contentType, url).toBe('text/javascript; charset=utf-8');
      expect(String(asset?.body)).toContain(JSON.stringify(min));
    }
  });

  it('draws picsum pictures at exactly the asked size, one colour per picture whatever its size or query', () => {
    expect(svgSize('https://picsum.photos/200/100')).toEqual([200, 100]);
    expect(svgSize('https://picsum.photos/300')).toEqual([300, 300]);
    expect(svgSize('https://picsum.photos/seed/picnic/640/480.webp')).toEqual([640, 480]);
    expect(svgSize('https://picsum.photos/id/10/64/48.jpg?grayscale&blur=2')).toEqual([64, 48]);
    expect(svgSize('https://picsum.photos/200/100?random=1')).toEqual([200, 100]);
    // The seed rewrites pictures without an id to picture 48: the same fill.
    const p48 = fill('https://picsum.photos/id/48/1200/400');
    expect(fill('https://picsum.photos/200/100?random=3')).toBe(p48);
    expect(fill('https://picsum.photos/id/48/20/20')).toBe(p48);
    expect(new Set([p48, fill('https://picsum.photos/id/10/20/20'), fill('https://picsum.photos/seed/a/20/20')]).size).toBe(3);
    expect(String(webPageAsset('https://picsum.photos/20/20')?.body)).not.toMatch(/<text/);
  });

  it('answers nothing else: other versions, other hosts, impossible sizes', () => {
    for (const url of [
      'https://cdn.jsdelivr.net/npm/tailwindcss@3.4.1/dist/tailwind.min.css',
      'https://cdn.jsdelivr.net/npm/tailwindcss@2.2.18/dist/tailwind.min.css',
      'https://cdn.jsdelivr.net/npm/tailwindcss/dist/tailwind.min.css',
      'https://cdn.tailwindcss.com.example.test/',
      'https://cdn.tailwindcss.com/x.js',
      'http://picsum.photos/200/100',
      'https://picsum.photos/0/100',
      'https://picsum.photos/6000/100',
      'https://picsum.photos/200/100/300',
      'https://example.com/200/100',
    ])
      expect(webPageAsset(url), url).toBeUndefined();
  });
});
