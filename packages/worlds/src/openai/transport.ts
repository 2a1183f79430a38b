import { decodedText } from './sse';

export interface TransportRequest {
  headers: Record<string, string>;
  body: string;
  /**
   * Registers the one function to call if the request is to stop (timeout, caller's abort), while
   * sending or while its body is read; called at once if it already was.
   */
  onCancel(listener: (reason: unknown) => void): void;
}

export interface TransportReply {
  status: number;
  header(name: string): string | null;
  /**
   * The body decoded as UTF-8, in pieces as they arrive (null: no body); a consumer that leaves
   * the loop early stops the download.
   */
  text: AsyncIterable<string> | null;
}

/**
 * How the endpoint pool sends one POST. Narrower than `fetch` on purpose: the pool needs a status,
 * one header and the body as text, and a transport that builds no `Response`, `Headers` or web
 * stream per request costs a fraction of the CPU (see `createUndiciTransport`).
 */
export type ChatTransport = (url: string, request: TransportRequest) => Promise<TransportReply>;

/** Any `fetch` (the browser's, Node's undici, a test double) as a transport. */
export function fetchTransport(fetchImpl: typeof fetch): ChatTransport {
  return async (url, request) => {
    const controller = new AbortController();
    request.onCancel((reason) => controller.abort(reason));
    const response = await fetchImpl(url, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
      signal: controller.signal,
    });
    return {
      status: response.status,
      header: (name) => response.headers.get(name),
      text: response.body === null ? null : decodedText(response.body),
    };
  };
}

/**
 * The body as one string, or its first `limit` characters and no more read: a reply only quoted
 * (an error page where a completion was expected) may be large or never end.
 */
export async function replyText(
  reply: TransportReply,
  limit = Number.POSITIVE_INFINITY,
): Promise<string> {
  if (reply.text === null) return '';
  let text = '';
  for await (const piece of reply.text) {
    text += piece;
    // Leaving the loop stops the download (TransportReply.text).
    if (text.length >= limit) return text.slice(0, limit);
  }
  return text;
}
