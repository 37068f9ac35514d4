// A STAND-IN for vLLM serving a reward model (`vllm serve <rm> --runner pooling`; the real one needs a GPU): its
// Pooling API as vLLM documents it (docs.vllm.ai/en/latest/models/pooling_models/ "Pooling API" and
// .../pooling_models/reward/): POST /pooling at the server root, answered {id, object: "list", created, model,
// data: [{index, object: "pooling", data}], usage: {prompt_tokens, total_tokens, ...}}. A sequence reward model's
// data is [reward]; a token reward model's is one [reward] per token.
import { json, startServer, type TestServer } from './recording-server';

/** Answers every POST /pooling with `data` for the one sequence (37 prompt tokens); the caller closes it. */
export function startVllmPoolingStandIn(data: unknown): Promise<TestServer> {
  return startServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/pooling') return json(res, 404, { detail: 'Not Found' });
    json(res, 200, {
      id: 'pool-1',
      object: 'list',
      created: 1745383065,
      model: (req.body as { model: string }).model,
      data: [{ index: 0, object: 'pooling', data }],
      usage: { prompt_tokens: 37, total_tokens: 37, completion_tokens: 0, prompt_tokens_details: null },
    });
  });
}
