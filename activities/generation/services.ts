// The side effects recipes get besides LLM calls, built per activity from the worker's shared resources: one
// Chromium per worker process (loaded only when a recipe renders; the CDN files generated pages use are served from
// memory, render/page-renderer.ts), the Python sandbox, and the artifact store for screenshots (records keep a ref,
// never PNG bytes).
import type { GenerationServices, ScoringServices } from '../recipes/runtime';
import { readFile } from 'node:fs/promises';
import { ArtifactStore } from '../artifacts/store';

const PNG = '.png';

const render = async (html: string) => (await import('../render/page-renderer')).renderWebPage(html);
const imageSaver = (store: ArtifactStore) => async (png: Buffer) => store.put(png, { ext: PNG }).uri;

export function generationServices(store: ArtifactStore, needs: { rendering: boolean; unitTests?: boolean }): GenerationServices {
  return {
    ...(needs.rendering ? { render, saveImage: imageSaver(store) } : {}),
    ...(needs.unitTests ? { runUnitTests: async (input) => (await import('../sandbox/unit-tests')).runUnitTests(input) } : {}),
  };
}

export function scoringServices(store: ArtifactStore): ScoringServices {
  return {
    runCodeTests: async (input) => (await import('../sandbox/code-tests')).runCodeTests(input),
    render,
    similarity: async (a, b) => (await import('../render/image-similarity')).imageSimilarity(a, b),
    loadImage: async (uri) => readFile(ArtifactStore.pathOf({ uri })),
    saveImage: imageSaver(store),
  };
}
