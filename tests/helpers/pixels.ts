// Reading decoded screenshots (pngjs) in render tests: one pixel, or how much of a box is one colour.
import type { PNG } from 'pngjs';

/** RGB of the pixel at (x, y). */
export function pixel(png: PNG, x: number, y: number): [number, number, number] {
  const i = (y * png.width + x) * 4;
  return [png.data[i], png.data[i + 1], png.data[i + 2]];
}

/** Fraction of pixels in the box whose colour is within `tol` of `rgb`. */
export function share(png: PNG, box: { x: number; y: number; w: number; h: number }, rgb: readonly number[], tol = 8): number {
  let hits = 0;
  for (let y = box.y; y < box.y + box.h; y++)
    for (let x = box.x; x < box.x + box.w; x++) {
      const p = pixel(png, x, y);
      if (p.every((v, c) => Math.abs(v - rgb[c]) <= tol)) hits++;
    }
  return hits / (box.w * box.h);
}
