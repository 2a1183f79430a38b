/// <reference types="node" />
// Test support only: an OpenAI-compatible server on 127.0.0.1 that records every request body.
// Model `wm` answers as a world model in the official tag, `pair…` as a pairwise judge picking A,
// `turing…` as a Turing judge taking A for the real one; any other model as a scoring judge.
import { createServer, type Server, type ServerResponse } from 'node:http';
import { z } from 'zod';

export const RecordedChat = z.object({
  model: z.string(),
  messages: z.array(z.object({ role: z.string(), content: z.string() })),
  temperature: z.number().optional(),
  max_tokens: z.number().optional(),
  stream: z.boolean().optional(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).optional(),
});
export type RecordedChat = z.infer<typeof RecordedChat>;

/** What every answer reports it used. */
const USAGE = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };

export const WORLD_MODEL_REPLY =
  '<think>recalling the user</think>\n<predicted_observation>\n{"simulated": true}\n</predicted_observation>';
export const JUDGE_VERDICT =
  '<final_evaluation>\n```json\n{"strengths": [], "weaknesses": [], ' +
  '"scores": {"format": 5, "factuality": 2, "consistency": 4, "realism": 3, "quality": 3}}\n```\n</final_evaluation>';

export const PAIRWISE_VERDICT = '{"closer": "A", "reasoning": "A keeps the ids"}';
export const TURING_VERDICT = '{"reasoning": "A reads like a log", "real": "A"}';

export interface RecordingEndpoint {
  /** Base URL, e.g. `http://127.0.0.1:PORT/v1`. */
  url: string;
  bodies: RecordedChat[];
  /** Answers the requests held so far (`holdAfter`) and every later one at once. */
  release(): void;
  /** Held requests whose client went away before an answer (an aborted prediction). */
  abandoned(): number;
  /**
   * While a message is set, answers requests with HTTP 400 and that message as an OpenAI-style
   * error (as vLLM refuses a prompt beyond its context), from the request after the next
   * `afterRequests` ones; null answers again.
   */
  refuseWith(message: string | null, afterRequests?: number): void;
  close(): Promise<void>;
}

export interface RecordingEndpointOptions {
  /** Answers this many requests, then holds the next ones unanswered until `release()`. */
  holdAfter?: number;
  /** Listens on this port (one a run was pointed at before the endpoint came up); default: any. */
  port?: number;
}

export async function startRecordingEndpoint(
  options: RecordingEndpointOptions = {},
): Promise<RecordingEndpoint> {
  const bodies: RecordedChat[] = [];
  let holdAfter = options.holdAfter ?? Infinity;
  let held: (() => void)[] = [];
  let abandoned = 0;
  let refusal: { message: string; from: number } | null = null;
  const server: Server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    request.on('end', () => {
      const body = RecordedChat.parse(JSON.parse(text));
      bodies.push(body);
      if (refusal !== null && bodies.length > refusal.from) {
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            error: { message: refusal.message, type: 'BadRequestError', code: 400 },
          }),
        );
      } else if (bodies.length > holdAfter) {
        held.push(() => answer(body, response));
        response.on('close', () => {
          if (!response.writableEnded) abandoned++;
        });
      } else answer(body, response);
    });
  });
  function answer(body: RecordedChat, response: ServerResponse): void {
    const content = body.model.startsWith('wm')
      ? WORLD_MODEL_REPLY
      : body.model.startsWith('pair')
        ? PAIRWISE_VERDICT
        : body.model.startsWith('turing')
          ? TURING_VERDICT
          : JUDGE_VERDICT;
    if (body.stream === true) {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = { id: 'x', object: 'chat.completion.chunk', model: body.model };
      response.write(
        `data: ${JSON.stringify({ ...chunk, choices: [{ index: 0, delta: { content } }] })}\n\n`,
      );
      response.write(
        `data: ${JSON.stringify({ ...chunk, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`,
      );
      // As vLLM answers `stream_options.include_usage`: a last chunk with no choices.
      if (body.stream_options?.include_usage === true)
        response.write(`data: ${JSON.stringify({ ...chunk, choices: [], usage: USAGE })}\n\n`);
      response.end('data: [DONE]\n\n');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        id: 'x',
        object: 'chat.completion',
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: USAGE,
      }),
    );
  }
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${address.port}/v1`,
    bodies,
    abandoned: () => abandoned,
    refuseWith(message, afterRequests = 0) {
      refusal = message === null ? null : { message, from: bodies.length + afterRequests };
    },
    release() {
      holdAfter = Infinity;
      const waiting = held;
      held = [];
      for (const respond of waiting) respond();
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
