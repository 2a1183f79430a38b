import type { Server, ServerResponse } from 'node:http';

/**
 * Answers an OpenAI-compatible chat completion request with `content`, as a model endpoint does
 * without streaming (the specs' stub endpoints stand in for vLLM, SGLang or a judge).
 */
export function answerChatCompletion(
  response: ServerResponse,
  model: string,
  content: string,
  usage?: { prompt_tokens: number; completion_tokens: number },
) {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify({
      id: model,
      object: 'chat.completion',
      model,
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      ...(usage === undefined
        ? {}
        : { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } }),
    }),
  );
}

/** Starts `server` on a free loopback port; resolves to the `/v1` base URL a sim spec names. */
export async function listenOnLoopback(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the stub has no TCP port');
  return `http://127.0.0.1:${address.port}/v1`;
}
