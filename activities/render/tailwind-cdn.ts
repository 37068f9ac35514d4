// Tailwind CSS for pages that load it from a CDN, answered from the pinned npm build instead of the network.
//
// Why: ColBench's html agent is asked for "HTML and Tailwind CSS" (sweet_rl prompts/llm_agent_html_prompt.txt) and its
// reference pages are WebSight v0.2 rows (sweet_rl README.md, "Frontend Design"), which link Tailwind 2.2.19 from
// jsDelivr. The seed renders both in Firefox with the network on (sweet_rl/utils/webpage_utils.py, render_full_html),
// so they are styled there; our renderer blocks the network, so it serves the same build from node_modules.
//
// Served (read from disk once, on first use):
// - the 2.2.19 stylesheet (`dist/tailwind.css` or `.min.css`) on jsDelivr and unpkg under every version spec that
//   resolves to 2.2.19 today (2.2.19 is the last 2.x release, so `2`, `^2`, `~2.2`, ... all name this exact file);
// - the Play CDN (`https://cdn.tailwindcss.com`, any version path or `?plugins=` query): a JS runtime that generates
//   Tailwind 3 CSS for the classes it finds. Its runtime is not published to npm, and a stylesheet cannot answer a
//   <script> request, so we answer with a script that inserts the 2.2.19 build as a <style> synchronously (styled
//   before first paint, nothing left to wait for) and defines the `tailwind` global pages assign a config to (the
//   config is ignored: the build is precompiled). Tailwind 3 names absent from 2.2.19 (arbitrary values such as
//   `w-[37px]`, later utilities) stay unstyled; the palette's common names (red-500 = #ef4444, ...) are the same.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Asset } from './browser-pool';

const require = createRequire(import.meta.url);

const STYLESHEET_URL =
  /^https:\/\/(?:cdn\.jsdelivr\.net\/npm|unpkg\.com)\/tailwindcss@(?:[\^~]|%5[Ee])?2(?:\.2(?:\.19)?)?\/dist\/tailwind(\.min)?\.css$/;
const PLAY_CDN_URL = /^https:\/\/cdn\.tailwindcss\.com\/(?:\d+(?:\.\d+)*\/?)?(?:\?[^#]*)?$/;

const files = new Map<string, string>();
function distFile(name: string): string {
  let text = files.get(name);
  if (text === undefined) {
    text = readFileSync(require.resolve(`tailwindcss-2/dist/${name}`), 'utf8');
    files.set(name, text);
  }
  return text;
}

let playScript: string | undefined;
function playCdnStandIn(): string {
  playScript ??=
    '(function(){var s=document.createElement("style");' +
    `s.textContent=${JSON.stringify(distFile('tailwind.min.css'))};` +
    '(document.head||document.documentElement).appendChild(s);window.tailwind=window.tailwind||{};})();';
  return playScript;
}

/** The Tailwind build a CDN URL names, or undefined for any other URL. */
export function tailwindAsset(url: string): Asset | undefined {
  const css = STYLESHEET_URL.exec(url);
  if (css) return { contentType: 'text/css; charset=utf-8', body: distFile(css[1] ? 'tailwind.min.css' : 'tailwind.css') };
  if (PLAY_CDN_URL.test(url)) return { contentType: 'text/javascript; charset=utf-8', body: playCdnStandIn() };
  return undefined;
}
