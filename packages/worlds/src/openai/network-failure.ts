// What a socket error code means, in the words of someone who set up the endpoint.
const SOCKET_FAILURES: Record<string, string> = {
  ECONNREFUSED: 'nothing accepted the connection; is the server running on that port?',
  ECONNRESET: 'the server closed the connection',
  ENOTFOUND: 'the host name was not found',
  EAI_AGAIN: 'the host name could not be looked up',
  EHOSTUNREACH: 'the host cannot be reached',
  ENETUNREACH: 'the network cannot be reached',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  UND_ERR_SOCKET: 'the connection failed',
};

function errorCode(error: unknown): string | null {
  if (typeof error !== 'object' || error === null || !('code' in error)) return null;
  return typeof error.code === 'string' ? error.code : null;
}

/**
 * Why a request never got an answer: the socket error in plain words (`nothing accepted the
 * connection; …`), else the transport's own message. The code (ECONNREFUSED) is left out: these
 * words reach the run page and the CLI, and say what the code means to someone who did not learn
 * errno names.
 */
export function networkFailure(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  const code = errorCode(cause) ?? errorCode(error);
  const plain = code === null ? undefined : SOCKET_FAILURES[code];
  if (plain !== undefined) return plain;
  const reason = error instanceof Error ? error.message : String(error);
  return cause instanceof Error ? `${reason}: ${cause.message}` : reason;
}
