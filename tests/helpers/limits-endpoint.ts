// An OpenAI-compatible chat endpoint for the shared-limits tests that records what a limit is about: requests in
// service at once (and the most ever), and each request's arrival time and tokens. Prompt tokens are counted as
// characters / 4 rounded down — never more than the client's estimate — so the tokens it saw are the tokens admitted.
// A prompt starting "hold " is never answered: its caller keeps its slot until it dies.
import http from 'node:http';
import { onLoopback } from './loopback-server';

export interface SeenRequest {
  at: number;
  tokens: number;
  prompt: string;
}

export interface LimitsEndpoint {
  baseUrl: string;
  model: string;
  inFlight(): number;
  peak(): number;
  seen: SeenRequest[];
  /** Forgets the requests seen and the peak. */
  reset(): void;
  close(): Promise<void>;
}

export async function startLimitsEndpoint(latencyMs: number): Promise<LimitsEndpoint> {
  let inFlight = 0;
  let peak = 0;
  const seen: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      const body = JSON.parse(raw) as { messages: Array<{ content: string }>; max_tokens: number };
      const prompt = body.messages.map((m) => m.content).join('');
      const promptTokens = Math.floor(prompt.length / 4);
      const completionTokens = Math.min(2, body.max_tokens);
      seen.push({ at: Date.now(), tokens: promptTokens + completionTokens, prompt });
      peak = Math.max(peak, ++inFlight);
      res.on('close', () => inFlight--);
      if (prompt.startsWith('hold ')) return;
      setTimeout(() => {
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            id: 'x',
            object: 'chat.completion',
            created: 0,
            model: 'limits-model',
            choices: [{ index: 0, message: { role: 'assistant', content: 'ok ok' }, finish_reason: 'stop' }],
            usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
          }),
        );
      }, latencyMs);
    });
  });
  const { url, close } = await onLoopback(server);
  return {
    baseUrl: `${url}/v1`,
    model: 'limits-model',
    inFlight: () => inFlight,
    peak: () => peak,
    seen,
    reset() {
      seen.length = 0;
      peak = inFlight;
    },
    close,
  };
}
