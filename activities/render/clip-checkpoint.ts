// What a CLIP checkpoint directory must hold for the CLIP screenshot scorer (clip-similarity.ts,
// ./clip_embed.py): CLIPModel's config and weights and the image preprocessing, as save_pretrained
// writes them. Checked by the config loader (recipe.similarity.model) and by the scorer before it starts Python.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const HOW_TO_GET_ONE = 'a CLIP checkpoint directory saved with save_pretrained, e.g. openai/clip-vit-base-patch32 downloaded beforehand';
const WEIGHT_FILES = ['model.safetensors', 'model.safetensors.index.json', 'pytorch_model.bin', 'pytorch_model.bin.index.json'];

/**
 * Why `dir` cannot be loaded as a CLIP checkpoint, or undefined when it looks loadable.
 */
export function clipCheckpointProblem(dir: string): string | undefined {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return `${dir} is not a directory (${HOW_TO_GET_ONE})`;
  const configFile = path.join(dir, 'config.json');
  if (!existsSync(configFile)) return `${dir} has no config.json (${HOW_TO_GET_ONE})`;
  let modelType: unknown;
  try {
    modelType = (JSON.parse(readFileSync(configFile, 'utf8')) as { model_type?: unknown }).model_type;
  } catch {
    return `${configFile} is not JSON`;
  }
  if (modelType !== 'clip') return `${configFile} has model_type ${JSON.stringify(modelType)}, not "clip" (${HOW_TO_GET_ONE})`;
  if (!existsSync(path.join(dir, 'preprocessor_config.json')))
    return `${dir} has no preprocessor_config.json (the image preprocessing; save the CLIPProcessor beside the model)`;
  const files = readdirSync(dir);
  if (!WEIGHT_FILES.some((f) => files.includes(f))) return `${dir} has no weights (${WEIGHT_FILES.join(' or ')})`;
  return undefined;
}
