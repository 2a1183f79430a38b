import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '../../app/trpc';
import { formatLatency } from '../compare/format-run';

/** Health of an `openai:` endpoint: the server asks its GET /models (allowlisted hosts only). */
export function EndpointHealthCell({ spec }: { spec: string }) {
  const trpc = useTRPC();
  const health = useQuery({
    ...trpc.models.endpointHealth.queryOptions({ spec }),
    staleTime: 15_000,
    retry: false,
  });
  if (health.isPending) return <span className="muted">checking…</span>;
  if (health.error) return <span className="status-error">{health.error.message}</span>;
  const { status, latencyMs, models, modelListed, message } = health.data;
  return (
    <span data-testid="endpoint-health" data-status={status} title={message ?? undefined}>
      <strong className={status === 'up' ? 'health-up' : 'health-down'}>{status}</strong>
      {latencyMs !== null && <> · {formatLatency(latencyMs)}</>}
      {models.length > 0 && (
        <> · {modelListed ? 'model listed' : `model not listed (has ${models.join(', ')})`}</>
      )}
      {message !== null && <span className="muted"> · {message}</span>}
    </span>
  );
}
