// POST /v1/chat/completions (OpenAI API reference, "Create chat completion"): validate, maybe inject a fault, else
// wait for a capacity slot and the fixed latency, answer from the policy, and count the answer under its request key.
import type http from 'node:http';
import type { CapacitySlots } from '../capacity-slots';
import { chatAnswer } from '../chat-answers';
import { type ChatBody, parseChatBody, requestKey } from '../chat-request';
import type { InjectedFaults } from '../injected-faults';
import { waitForPace } from '../../pace-gate';
import { orAnswerError, RequestError, type RouteHandler, readBody, sendError, sendJson, serverError } from '../json-http';
import type { Policy } from '../policy';
import type { ServerCounters } from '../server-stats';

export const CHAT_COMPLETIONS_PATH = '/v1/chat/completions';

export interface ChatCompletionsDeps {
  modelName: string;
  policy: Policy;
  /** How long each request holds its slot before it is answered. */
  latencyMs: number;
  /** A pace-gate file (../../pace-gate.ts): the n-th request is served once it allows n. */
  answerGate?: string;
  slots: CapacitySlots;
  faults: InjectedFaults;
  counters: ServerCounters;
}

export function chatCompletionsRoute(deps: ChatCompletionsDeps): RouteHandler {
  const { counters, faults } = deps;
  let admitted = 0;
  const chat = (req: http.IncomingMessage, res: http.ServerResponse, text: string) => {
    const body = orAnswerError(res, () => parseChatBody(text, deps.modelName));
    if (!body) return;
    const kind = faults.next();
    if (!kind) return serve(deps, body, requestKey(req, body), res, ++admitted);
    counters.faulted++;
    faults.answer(kind, req, res);
  };
  return (req, res) => {
    counters.received++;
    readBody(req, res, (text) => {
      try {
        chat(req, res, text);
      } catch (err) {
        if (!res.headersSent) sendError(res, serverError(String((err as Error).message)));
      }
    });
  };
}

function serve(deps: ChatCompletionsDeps, body: ChatBody, key: string, res: http.ServerResponse, n: number): void {
  const { slots, latencyMs } = deps;
  let gone = false;
  res.once('close', () => {
    gone = true;
  });
  if (deps.answerGate) {
    const gate = deps.answerGate;
    waitForPace(gate, n, () => gone).then(() => (gone ? undefined : serve({ ...deps, answerGate: undefined }, body, key, res, n)));
    return;
  }
  slots.acquire(() => {
    if (gone) return slots.release(); // the client gave up while queued: don't make the others wait for it
    deps.counters.inService(slots.inService);
    const answer = () => (gone ? slots.release() : respond(deps, body, key, res));
    if (latencyMs > 0) setTimeout(answer, latencyMs);
    else answer();
  });
}

function respond(deps: ChatCompletionsDeps, body: ChatBody, key: string, res: http.ServerResponse): void {
  let payload: unknown;
  try {
    payload = chatAnswer(body, deps.policy, deps.modelName);
  } catch (err) {
    deps.slots.release();
    sendError(res, err instanceof RequestError ? err : serverError(`policy failed: ${(err as Error).message}`));
    return;
  }
  // Count only once the whole response is handed to the socket: a 200 the client never got was not paid.
  res.once('finish', () => deps.counters.answered(key));
  sendJson(res, 200, payload);
  deps.slots.release();
}
