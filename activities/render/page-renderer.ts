// The worker's renderer for LLM-written web pages (ColBench html proposals and their WebSight reference pages): the
// process-wide pool, with the CDN files such pages are written against served from memory — the pinned Tailwind
// build (tailwind-cdn.ts) and flat placeholders for picsum.photos pictures (picsum-placeholder.ts). Every other
// request stays blocked.
import { type Asset, sharedBrowserPool } from './browser-pool';
import { picsumPlaceholder } from './picsum-placeholder';
import { tailwindAsset } from './tailwind-cdn';
import { count } from '../metrics';

/** The in-memory answer for a URL a generated page may reference, or undefined (the request is blocked). */
export const webPageAsset = (url: string): Asset | undefined => tailwindAsset(url) ?? picsumPlaceholder(url);

/** Full-page PNG of one generated page, rendered through the process-wide pool. */
export async function renderWebPage(html: string): Promise<Buffer> {
  const png = await sharedBrowserPool({ serve: webPageAsset }).renderHtml(html);
  count('renders', 1);
  return png;
}
