// The side effects recipes get besides LLM calls, built per activity from the worker's shared resources: one
// Chromium per worker process (loaded only when a recipe renders; the CDN files generated pages use are served from
// memory, render/page-renderer.ts), the Python sandbox, and the artifact store for screenshots (records keep a ref,
// never PNG bytes).
import type { GenerationServices, ScoringServices } from '../recipes/types';
import type { SimilarityMeasure } from '../../contracts/config-fields';
import type { ArtifactStore } from '../artifacts/store';
import type { ImageSimilarity } from '../render/image-similarity';

const PNG = '.png';

const render = async (html: string) => (await import('../render/page-renderer')).renderWebPage(html);
const imageSaver = (store: ArtifactStore) => async (png: Buffer) => (await store.put(png, { ext: PNG })).uri;

export function generationServices(store: ArtifactStore, needs: { rendering: boolean; unitTests?: boolean }): GenerationServices {
  return {
    ...(needs.rendering ? { render, saveImage: imageSaver(store) } : {}),
    ...(needs.unitTests ? { runUnitTests: async (input) => (await import('../sandbox/unit-tests')).runUnitTests(input) } : {}),
  };
}

const weightFree: ImageSimilarity = async (a, b) => (await import('../render/image-similarity')).imageSimilarity(a, b);

/** The measure a config chose; a CLIP scorer process starts on the first pair and serves the whole worker. */
function similarity(measure: SimilarityMeasure): ImageSimilarity {
  if (measure.kind === 'weight-free') return weightFree;
  return async (a, b) => (await import('../render/clip-similarity')).clipSimilarity(measure.model, a, b);
}

export function scoringServices(store: ArtifactStore): ScoringServices {
  return {
    runCodeTests: async (input) => (await import('../sandbox/code-tests')).runCodeTests(input),
    render,
    similarity,
    loadImage: (uri) => store.readUri(uri),
    saveImage: imageSaver(store),
  };
}
