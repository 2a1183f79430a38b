export type EndpointErrorKind =
  /** The endpoint answered with an error status (after the retries, for 429 and 5xx). */
  | 'http'
  /** No answer: connection refused or reset, DNS, a stream cut short. */
  | 'network'
  | 'timeout'
  /** The caller's signal aborted the request. */
  | 'aborted'
  /** The answer was not an OpenAI chat completion. */
  | 'protocol';

export class EndpointError extends Error {
  override name = 'EndpointError';
  constructor(
    message: string,
    readonly kind: EndpointErrorKind,
    readonly url: string,
    readonly attempts: number,
    readonly status: number | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
