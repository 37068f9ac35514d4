// How alike two rendered pages look, as a number in [0, 1], without model weights: the default screenshot score
// (ColBench's own, CLIP image embeddings from a local checkpoint, is clip-similarity.ts).
//
// imageSimilarity = 0.6 × structure + 0.4 × palette
//   structure: SSIM (Wang et al. 2004; ssim.js "weber": 11×11 box windows over summed-area tables) of the two pages
//     in grayscale at a common working size, averaged with information-content weights (after Wang & Li's
//     IW-SSIM): a window counts by log((1 + σa²/C2)(1 + σb²/C2)), so regions flat in BOTH pages weigh nothing.
//     Plain mean SSIM lets whitespace dominate: a blank page scored 0.44 and an unrelated dark design 0.22
//     against a white landing page; weighted, 0.05 and 0.03. SSIM compares local means, contrasts and
//     correlations, so it sees layout: where blocks, text lines and edges are. At the working width (256 px for a
//     1280 px page, 5× smaller) a line of text becomes a grey bar, so changing a few words barely moves it, while
//     moving, adding or removing blocks does. Negative SSIM counts as 0.
//   palette: how far the colour mass of one page must move to become the other's — earth mover's distance
//     between the two pages' L*, a*, b* distributions (CIELAB, per channel, 1-unit bins), summed, as
//     1 − distance / 100 (100 = white page vs black page). Lab so that equal distances look about equally
//     different (white vs #fafafa: 0.98; the blue accent of header, button and headings turned red: 0.85); EMD rather than
//     histogram intersection because intersection is not distance-aware (near-identical colours on either side of
//     a bin edge count as entirely different: white vs #fafafa scored 0.64 with 8-level soft bins).
//     Grayscale SSIM is blind to hue (a red and a blue button of similar luminance look the same to it) and, with
//     the weights, to the fill of flat areas; the palette is blind to position. Together layout AND colour matter.
//   The weights favour structure (layout is what a design brief mostly specifies) but keep a recolouring clearly
//   below an identical page. Measured on crafted pages (tests/integration/activities/render/image-similarity.test.ts): identical 1.00,
//   a changed headline 0.98, accent colour changed 0.94, accent + background tint 0.88, same page with an extra
//   section (taller) 0.77, blank page 0.32, unrelated dark design 0.02.
//
// Pages of different sizes (full-page shots of different heights): both are placed top-left on a common canvas
// (the larger width × the larger height) and the missing part is filled with that page's dominant colour (its
// background, in practice) — what the page "continues as" below its end. So a page that matches the top of the
// reference but stops early loses exactly the part it lacks, instead of being stretched (which would misalign
// everything). Then the canvas is
// area-averaged down to the working width; the height follows the aspect ratio, capped at MAX_WORK_HEIGHT.
// For contrast, ColBench's CLIP score resizes the short side to 224 px and centre-crops, so on a tall page only
// the middle square counts.
import { PNG } from 'pngjs';
import { ssim } from 'ssim.js';

/** Similarity of two PNG screenshots in [0, 1] as a scorer receives it: this weight-free measure, or CLIP
 *  image-embedding cosine (clip-similarity.ts, ColBench's own). */
export type ImageSimilarity = (pngA: Buffer, pngB: Buffer) => number | Promise<number>;

export const WORK_WIDTH = 256;
export const MAX_WORK_HEIGHT = 2048;
export const STRUCTURE_WEIGHT = 0.6;
export const PALETTE_WEIGHT = 0.4;
const WINDOW = 11; // SSIM window (ssim.js default)
const MIN_WORK_SIDE = 16; // SSIM needs at least one window

/** A decoded page: RGBA bytes, opaque. */
interface Rgba {
  width: number;
  height: number;
  data: Uint8Array;
}
/** A working-size page: 3 floats per pixel, 0..255. */
interface Rgb {
  width: number;
  height: number;
  data: Float32Array;
}

/** Decodes a PNG; translucent pixels are composited over white (what a viewer shows). */
function decodePng(png: Buffer): Rgba {
  const img = PNG.sync.read(png);
  const d = img.data;
  for (let i = 3; i < d.length; i += 4) {
    if (d[i] === 255) continue;
    const a = d[i] / 255;
    d[i - 3] = Math.round(d[i - 3] * a + 255 * (1 - a));
    d[i - 2] = Math.round(d[i - 2] * a + 255 * (1 - a));
    d[i - 1] = Math.round(d[i - 1] * a + 255 * (1 - a));
    d[i] = 255;
  }
  return { width: img.width, height: img.height, data: d };
}

/**
 * Most frequent colour — the page background in practice: the fullest bin of a 32-level-per-channel histogram,
 * returned as the mean colour of the pixels in it (exact for flat backgrounds).
 */
function dominantColour(img: Rgba): [number, number, number] {
  const counts = new Uint32Array(32 * 32 * 32);
  const sums = new Float64Array(32 * 32 * 32 * 3);
  const n = img.width * img.height;
  const d = img.data;
  // A mode needs no exhaustive count: every 7th pixel (a prime stride, so no aliasing with column patterns).
  for (let p = 0, k = 0; p < n; p += 7, k += 28) {
    const bin = ((d[k] >> 3) << 10) | ((d[k + 1] >> 3) << 5) | (d[k + 2] >> 3);
    counts[bin]++;
    sums[bin * 3] += d[k];
    sums[bin * 3 + 1] += d[k + 1];
    sums[bin * 3 + 2] += d[k + 2];
  }
  let best = 0;
  for (let bin = 1; bin < counts.length; bin++) if (counts[bin] > counts[best]) best = bin;
  const c = Math.max(1, counts[best]);
  return [sums[best * 3] / c, sums[best * 3 + 1] / c, sums[best * 3 + 2] / c];
}

/**
 * Area-averaging taps along one axis: output i covers source indices first[i] .. first[i]+count[i]-1 with the
 * given weights (fractional overlap at the edges; they sum to 1). Works for up- and downscaling.
 */
interface Taps {
  first: Int32Array;
  count: Int32Array;
  weight: Float64Array;
  stride: number;
}
function boxTaps(srcLen: number, dstLen: number): Taps {
  const scale = srcLen / dstLen;
  const stride = Math.ceil(scale) + 2;
  const taps: Taps = { first: new Int32Array(dstLen), count: new Int32Array(dstLen), weight: new Float64Array(dstLen * stride), stride };
  for (let i = 0; i < dstLen; i++) {
    const s0 = i * scale;
    const s1 = (i + 1) * scale;
    const j0 = Math.floor(s0);
    taps.first[i] = j0;
    let n = 0;
    for (let j = j0; j < Math.ceil(s1 - 1e-9); j++) taps.weight[i * stride + n++] = (Math.min(s1, j + 1) - Math.max(s0, j)) / scale;
    taps.count[i] = n;
  }
  return taps;
}

/**
 * Area-averaged resample of `img` placed top-left on a canvasW × canvasH canvas filled with `pad`, to outW × outH.
 * Separable: rows first (only the image's own rows exist), then columns (rows below the image are `pad`).
 */
function resampleOnCanvas(img: Rgba, pad: number[], canvasW: number, canvasH: number, outW: number, outH: number): Rgb {
  const xs = boxTaps(canvasW, outW);
  const src = img.data;
  const rows = new Float32Array(outW * img.height * 3);
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < outW; x++) {
      let r = 0,
        g = 0,
        b = 0;
      for (let t = 0, sx = xs.first[x]; t < xs.count[x]; t++, sx++) {
        const w = xs.weight[x * xs.stride + t];
        if (sx < img.width) {
          const k = (y * img.width + sx) * 4;
          r += src[k] * w;
          g += src[k + 1] * w;
          b += src[k + 2] * w;
        } else {
          r += pad[0] * w;
          g += pad[1] * w;
          b += pad[2] * w;
        }
      }
      const o = (y * outW + x) * 3;
      rows[o] = r;
      rows[o + 1] = g;
      rows[o + 2] = b;
    }
  }
  const ys = boxTaps(canvasH, outH);
  const out = new Float32Array(outW * outH * 3);
  for (let y = 0; y < outH; y++) {
    for (let x = 0; x < outW; x++) {
      let r = 0,
        g = 0,
        b = 0;
      for (let t = 0, sy = ys.first[y]; t < ys.count[y]; t++, sy++) {
        const w = ys.weight[y * ys.stride + t];
        if (sy < img.height) {
          const k = (sy * outW + x) * 3;
          r += rows[k] * w;
          g += rows[k + 1] * w;
          b += rows[k + 2] * w;
        } else {
          r += pad[0] * w;
          g += pad[1] * w;
          b += pad[2] * w;
        }
      }
      const o = (y * outW + x) * 3;
      out[o] = r;
      out[o + 1] = g;
      out[o + 2] = b;
    }
  }
  return { width: outW, height: outH, data: out };
}

function toImageData(img: Rgb): { data: Uint8ClampedArray; width: number; height: number } {
  const data = new Uint8ClampedArray(img.width * img.height * 4);
  for (let p = 0; p < img.width * img.height; p++) {
    data[p * 4] = img.data[p * 3];
    data[p * 4 + 1] = img.data[p * 3 + 1];
    data[p * 4 + 2] = img.data[p * 3 + 2];
    data[p * 4 + 3] = 255;
  }
  return { data, width: img.width, height: img.height };
}

/** sRGB (0..255) → CIELAB (D65): a space where equal distances look about equally different. */
function toLab(r: number, g: number, b: number): [number, number, number] {
  const lin = (v: number) => {
    const c = v / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const R = lin(r),
    G = lin(g),
    B = lin(b);
  const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);
  const fx = f((0.4124 * R + 0.3576 * G + 0.1805 * B) / 0.95047);
  const fy = f(0.2126 * R + 0.7152 * G + 0.0722 * B);
  const fz = f((0.0193 * R + 0.1192 * G + 0.9505 * B) / 1.08883);
  return [116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)];
}

/**
 * Per-channel histograms of L*, a*, b* in 1-unit bins (L 0..100, a/b −128..127), each normalised to 1. For
 * distance-aware comparison of colour distributions (earth mover's distance, see paletteSimilarity).
 */
const LAB_BINS = 256;
function labHistograms(img: Rgb): Float64Array[] {
  const hists = [new Float64Array(LAB_BINS), new Float64Array(LAB_BINS), new Float64Array(LAB_BINS)];
  const n = img.width * img.height;
  // Working images are small (≤ 256 × 2048) but colours repeat a lot: cache the conversion.
  const cache = new Map<number, [number, number, number]>();
  for (let p = 0; p < n; p++) {
    const r = Math.round(img.data[p * 3]),
      g = Math.round(img.data[p * 3 + 1]),
      b = Math.round(img.data[p * 3 + 2]);
    const key = (r << 16) | (g << 8) | b;
    let lab = cache.get(key);
    if (!lab) {
      lab = toLab(r, g, b);
      cache.set(key, lab);
    }
    hists[0][Math.min(LAB_BINS - 1, Math.max(0, Math.round(lab[0])))] += 1 / n;
    hists[1][Math.min(LAB_BINS - 1, Math.max(0, Math.round(lab[1]) + 128))] += 1 / n;
    hists[2][Math.min(LAB_BINS - 1, Math.max(0, Math.round(lab[2]) + 128))] += 1 / n;
  }
  return hists;
}

/** Earth mover's distance between two 1-D distributions on unit bins: Σ |CDF_a − CDF_b|. */
function emd1d(a: Float64Array, b: Float64Array): number {
  let ca = 0,
    cb = 0,
    d = 0;
  for (let i = 0; i < a.length; i++) {
    ca += a[i];
    cb += b[i];
    d += Math.abs(ca - cb);
  }
  return d;
}

/**
 * 1 − (EMD(L*) + EMD(a*) + EMD(b*)) / PALETTE_SCALE, clamped to [0, 1]: how far, in Lab units, the colour mass of
 * one page has to move to become the other's. PALETTE_SCALE = 100 = a white page against a black one.
 */
export const PALETTE_SCALE = 100;
function paletteSimilarity(a: Rgb, b: Rgb): number {
  const ha = labHistograms(a);
  const hb = labHistograms(b);
  const distance = emd1d(ha[0], hb[0]) + emd1d(ha[1], hb[1]) + emd1d(ha[2], hb[2]);
  return Math.max(0, 1 - distance / PALETTE_SCALE);
}

/** Gray levels as ssim.js computes them ('integer' BT.601 luma), for the weights below. */
function gray(img: Rgb): Float64Array {
  const g = new Float64Array(img.width * img.height);
  for (let p = 0; p < g.length; p++) g[p] = (77 * img.data[p * 3] + 150 * img.data[p * 3 + 1] + 29 * img.data[p * 3 + 2] + 128) / 256;
  return g;
}

/** Variance of every WINDOW×WINDOW window (summed-area tables), top-left aligned like ssim.js's map: valid windows only. */
function localVariance(g: Float64Array, width: number, height: number): Float64Array {
  const W = width + 1;
  const s1 = new Float64Array(W * (height + 1));
  const s2 = new Float64Array(W * (height + 1));
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const v = g[y * width + x];
      const i = (y + 1) * W + x + 1;
      s1[i] = v + s1[i - 1] + s1[i - W] - s1[i - W - 1];
      s2[i] = v * v + s2[i - 1] + s2[i - W] - s2[i - W - 1];
    }
  const ow = width - WINDOW + 1;
  const oh = height - WINDOW + 1;
  const out = new Float64Array(Math.max(0, ow) * Math.max(0, oh));
  const n = WINDOW * WINDOW;
  for (let y = 0; y < oh; y++)
    for (let x = 0; x < ow; x++) {
      const a = y * W + x,
        b = a + WINDOW,
        c = a + WINDOW * W,
        d = c + WINDOW;
      const m = (s1[d] - s1[b] - s1[c] + s1[a]) / n;
      out[y * ow + x] = Math.max(0, (s2[d] - s2[b] - s2[c] + s2[a]) / n - m * m);
    }
  return out;
}

/**
 * Mean SSIM weighted by information content (after Wang & Li's IW-SSIM): a window counts by
 * log((1 + σa²/C2)(1 + σb²/C2)), so regions that are flat in both pages (margins, empty background) weigh nothing
 * and whitespace cannot make unrelated pages look alike. Falls back to the plain mean when both pages are flat.
 */
function weightedSsim(wa: Rgb, wb: Rgb): { weighted: number; plain: number } {
  const { ssim_map: map, mssim } = ssim(toImageData(wa), toImageData(wb), { ssim: 'weber', downsample: false, windowSize: WINDOW });
  const va = localVariance(gray(wa), wa.width, wa.height);
  const vb = localVariance(gray(wb), wb.width, wb.height);
  const c2 = (0.03 * 255) ** 2;
  let num = 0,
    den = 0;
  for (let i = 0; i < map.data.length && i < va.length; i++) {
    const w = Math.log((1 + va[i] / c2) * (1 + vb[i] / c2));
    num += w * map.data[i];
    den += w;
  }
  return { weighted: den > 1e-9 ? num / den : mssim, plain: mssim };
}

/** `plainSsim`: unweighted mean SSIM, for comparison with other tools' SSIM figures. */
export interface SimilarityParts {
  score: number;
  structure: number;
  palette: number;
  plainSsim: number;
}

/** The score and its two terms (for logs and for tuning the weights). */
export function imageSimilarityParts(pngA: Buffer, pngB: Buffer): SimilarityParts {
  if (pngA.equals(pngB)) return { score: 1, structure: 1, palette: 1, plainSsim: 1 };
  const a = decodePng(pngA);
  const b = decodePng(pngB);
  const canvasW = Math.max(a.width, b.width);
  const canvasH = Math.max(a.height, b.height);
  const outW = Math.max(MIN_WORK_SIDE, Math.min(WORK_WIDTH, canvasW));
  const outH = Math.max(MIN_WORK_SIDE, Math.min(MAX_WORK_HEIGHT, Math.round((canvasH * outW) / canvasW)));
  const wa = resampleOnCanvas(a, dominantColour(a), canvasW, canvasH, outW, outH);
  const wb = resampleOnCanvas(b, dominantColour(b), canvasW, canvasH, outW, outH);
  const { weighted, plain } = weightedSsim(wa, wb);
  const structure = Math.max(0, Math.min(1, weighted));
  const pal = paletteSimilarity(wa, wb);
  return { score: STRUCTURE_WEIGHT * structure + PALETTE_WEIGHT * pal, structure, palette: pal, plainSsim: plain };
}

/** Weight-free visual similarity of two PNGs in [0, 1]; 1 = same picture. See the header for the measure. */
export function imageSimilarity(pngA: Buffer, pngB: Buffer): number {
  return imageSimilarityParts(pngA, pngB).score;
}
