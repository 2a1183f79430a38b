import { assertAllowedHost, HostNotAllowedError } from '@terrarium/worlds';

/** Long enough for a loaded server on this machine, short enough for a page that lists several. */
export const HEALTH_TIMEOUT_MS = 3000;

export interface EndpointHealth {
  baseUrl: string;
  model: string;
  /** `up`: GET /models answered 2xx; `refused`: the host is not on the allowlist (never contacted). */
  status: 'up' | 'down' | 'refused';
  httpStatus: number | null;
  latencyMs: number | null;
  /** Model ids the endpoint lists (empty when it did not answer with an OpenAI model list). */
  models: string[];
  /** Whether the configured model is among them (null when the endpoint listed none). */
  modelListed: boolean | null;
  message: string | null;
}

export interface HealthOptions {
  allowlist: readonly string[];
  fetch: typeof fetch;
  timeoutMs?: number;
  now?: () => number;
}

/** `{base}/models`, whether or not the base URL already ends in /v1 (as chatCompletionsUrl). */
export function modelsUrl(baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  return base.endsWith('/v1') ? `${base}/models` : `${base}/v1/models`;
}

function modelIdsOf(body: unknown): string[] {
  const data: unknown =
    typeof body === 'object' && body !== null ? Reflect.get(body, 'data') : undefined;
  if (!Array.isArray(data)) return [];
  return data.flatMap((entry: unknown) => {
    const id: unknown =
      typeof entry === 'object' && entry !== null ? Reflect.get(entry, 'id') : undefined;
    return typeof id === 'string' ? [id] : [];
  });
}

function messageOf(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'no answer in time';
  if (error instanceof Error) {
    const cause: unknown = error.cause;
    return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
  }
  return String(error);
}

/**
 * Asks an OpenAI-compatible endpoint for its model list, with a short timeout. A host outside the
 * allowlist is not contacted at all, so this cannot be used to probe other machines.
 */
export async function checkEndpoint(
  baseUrl: string,
  model: string,
  { allowlist, fetch, timeoutMs = HEALTH_TIMEOUT_MS, now = () => performance.now() }: HealthOptions,
): Promise<EndpointHealth> {
  const base = { baseUrl, model, models: [], modelListed: null };
  try {
    assertAllowedHost(baseUrl, allowlist);
  } catch (error) {
    if (!(error instanceof HostNotAllowedError)) throw error;
    return {
      ...base,
      status: 'refused',
      httpStatus: null,
      latencyMs: null,
      message: error.message,
    };
  }
  const started = now();
  try {
    const response = await fetch(modelsUrl(baseUrl), {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
    const latencyMs = now() - started;
    const body: unknown = await response.json().catch(() => null);
    if (!response.ok) {
      return {
        ...base,
        status: 'down',
        httpStatus: response.status,
        latencyMs,
        message: `GET /models answered ${response.status}`,
      };
    }
    const models = modelIdsOf(body);
    return {
      ...base,
      status: 'up',
      httpStatus: response.status,
      latencyMs,
      models,
      modelListed: models.length === 0 ? null : models.includes(model),
      message: null,
    };
  } catch (error) {
    return {
      ...base,
      status: 'down',
      httpStatus: null,
      latencyMs: null,
      message: messageOf(error),
    };
  }
}
