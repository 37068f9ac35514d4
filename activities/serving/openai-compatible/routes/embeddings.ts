// POST /v1/embeddings (OpenAI API reference, "Embeddings") for dry runs: a deterministic stand-in, not a model —
// each input's words (lowercased) hashed into EMBEDDING_DIMS signed buckets, L2-normalised, so identical texts
// have cosine 1, texts without a shared word about 0, and the debate's diversity metric has numbers to compute.
import { hashSeed } from '../../../seeded-random';
import { invalid, orAnswerError, parseJson, type RouteHandler, readBody, sendJson } from '../json-http';

export const EMBEDDINGS_PATH = '/v1/embeddings';
export const EMBEDDING_DIMS = 64;

/** The stand-in embedding of one text. */
export function hashedEmbedding(text: string): number[] {
  const v = new Array<number>(EMBEDDING_DIMS).fill(0);
  for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const h = hashSeed('embedding', w);
    v[h % EMBEDDING_DIMS] += h & 0x80000000 ? -1 : 1;
  }
  const norm = Math.hypot(...v);
  return norm ? v.map((x) => x / norm) : v;
}

export const embeddingsRoute =
  (modelName: string): RouteHandler =>
  (req, res) =>
    readBody(req, res, (text) => {
      const inputs = orAnswerError(res, () => inputsOf(text));
      if (!inputs) return;
      const tokens = inputs.reduce((a, s) => a + (s.match(/\S+/g)?.length ?? 0), 0);
      sendJson(res, 200, {
        object: 'list',
        data: inputs.map((s, index) => ({ object: 'embedding', index, embedding: hashedEmbedding(s) })),
        model: modelName,
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      });
    });

function inputsOf(text: string): string[] {
  const b = parseJson(text) as { input?: unknown; encoding_format?: unknown };
  if (b?.encoding_format !== undefined && b.encoding_format !== 'float')
    throw invalid('only "encoding_format": "float" is served', 'encoding_format');
  const input = typeof b?.input === 'string' ? [b.input] : b?.input;
  if (!Array.isArray(input) || input.length === 0 || !input.every((s) => typeof s === 'string'))
    throw invalid('"input" must be a string or a non-empty array of strings', 'input');
  return input;
}
