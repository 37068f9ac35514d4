// A local stand-in for picsum.photos pictures: an SVG of exactly the asked size, one flat colour, no text.
//
// Why: ColBench's html agent may only use pictures from picsum.photos (sweet_rl prompts/llm_agent_html_prompt.txt),
// and the seed rewrites every `https://picsum.photos/<w>/<h>` in agent answers and reference pages to picture 48
// (sweet_rl/utils/webpage_utils.py, replace_urls). Our renderer has no network, so a picture is a placeholder that
// keeps what the layout depends on, its size, and the picture's identity: the fill is derived from the picture
// (`id/<n>`, `seed/<s>`; a URL without either is picture 48, as the seed's rewrite makes it), never from its size
// or query (`?random=1`, `?grayscale`), so the same picture at two sizes has the same colour in both pages.
import { createHash } from 'node:crypto';
import type { Asset } from './browser-pool';

// https://picsum.photos/[id/<n>/|seed/<s>/]<w>[/<h>][.jpg|.webp][?query]
const PICSUM_URL = /^https:\/\/picsum\.photos\/(?:(id|seed)\/([^/?#]+)\/)?(\d{1,4})(?:\/(\d{1,4}))?(?:\.(?:jpe?g|webp))?\/?(?:\?[^#]*)?$/;
/** picsum.photos refuses larger pictures. */
const MAX_SIDE = 5000;
/** The picture the seed's rewrite gives every picsum URL that names none. */
const SEED_PICTURE = 'id/48';

/** The placeholder for a picsum.photos picture URL, or undefined for any other URL (or an impossible size). */
export function picsumPlaceholder(url: string): Asset | undefined {
  const m = PICSUM_URL.exec(url);
  if (!m) return undefined;
  const width = Number(m[3]);
  const height = m[4] === undefined ? width : Number(m[4]);
  if (width < 1 || height < 1 || width > MAX_SIDE || height > MAX_SIDE) return undefined;
  const picture = m[1] ? `${m[1]}/${m[2]}` : SEED_PICTURE;
  // Mid-range channels: never page white or text black, so a picture stays visible as a block.
  const rgb = [...createHash('sha256').update(picture).digest().subarray(0, 3)].map((b) => 48 + (b % 160));
  const fill = `#${rgb.map((c) => c.toString(16).padStart(2, '0')).join('')}`;
  return {
    contentType: 'image/svg+xml',
    body: `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="${fill}"/></svg>`,
  };
}
