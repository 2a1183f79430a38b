import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { usageText } from '@terrarium/schema';
import { useEffect, useState } from 'react';
import { useTRPC } from '../../app/trpc';
import { newestVersion, VersionSelect } from '../rule-sets/rule-set-selects';

/**
 * Starts a re-judge job of the queue's items with a rule-set version's criteria and follows it;
 * when it is done, its scores become the "after" judge version.
 */
export function RejudgeForm({
  queueId,
  onDone,
}: {
  queueId: string;
  onDone: (judgeVersion: string) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const ruleSets = useQuery(trpc.rulesets.list.queryOptions());
  const [name, setName] = useState<string | null>(null);
  // A saved rule set first; else the first built-in, the one the select shows (with nothing
  // chosen, the select showed one and the button did nothing).
  const chosen =
    name ??
    ruleSets.data?.find((entry) => entry.latestVersion !== null)?.name ??
    ruleSets.data?.[0]?.name ??
    null;
  const versions = useQuery({
    ...trpc.rulesets.versions.queryOptions({ name: chosen ?? '' }),
    enabled: chosen !== null,
  });
  const [version, setVersion] = useState<number | null>(null);
  const pickedVersion = version ?? newestVersion(versions.data);
  const [judge, setJudge] = useState('');
  const [jobId, setJobId] = useState<string | null>(null);
  const [missing, setMissing] = useState<string | null>(null);
  const start = useMutation(
    trpc.labels.rejudge.mutationOptions({ onSuccess: (progress) => setJobId(progress.id) }),
  );
  const status = useQuery({
    ...trpc.labels.rejudgeStatus.queryOptions({ id: jobId ?? '' }),
    enabled: jobId !== null,
    refetchInterval: (query) => (query.state.data?.status === 'running' ? 500 : false),
    staleTime: 0,
  });
  const progress = status.data;
  // Keyed by job id too, so re-judging the same version again refreshes as well.
  const finished = progress?.status === 'done' ? `${progress.id}\n${progress.judgeVersion}` : null;
  // Once per finished job: the new version's scores exist, so it becomes the "after" side.
  useEffect(() => {
    if (finished === null) return;
    void Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.labels.judgeVersions.queryKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.labels.agreement.queryKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.labels.flips.queryKey() }),
    ]).then(() => onDone(finished.slice(finished.indexOf('\n') + 1)));
  }, [finished, queryClient, trpc, onDone]);
  return (
    <form
      className="page-actions"
      aria-label="Re-judge"
      onSubmit={(event) => {
        event.preventDefault();
        if (chosen === null) return;
        if (judge.trim() === '') {
          setMissing('type the judge endpoint first (openai:URL#model)');
          return;
        }
        setMissing(null);
        start.mutate({
          queueId,
          judge: judge.trim(),
          ruleSet:
            pickedVersion === null ? { name: chosen } : { name: chosen, version: pickedVersion },
        });
      }}
    >
      <select
        aria-label="Re-judge rule set"
        value={chosen ?? ''}
        onChange={(event) => {
          setName(event.target.value);
          setVersion(null);
        }}
      >
        {(ruleSets.data ?? []).map((entry) => (
          <option key={entry.name} value={entry.name}>
            {entry.name}
          </option>
        ))}
      </select>
      <VersionSelect
        label="Re-judge version"
        versions={versions.data ?? []}
        value={pickedVersion}
        onChange={setVersion}
      />
      <input
        aria-label="Judge endpoint"
        placeholder="openai:http://127.0.0.1:8000/v1#model"
        value={judge}
        size={40}
        onChange={(event) => setJudge(event.target.value)}
      />
      <button type="submit" className="button primary" disabled={start.isPending}>
        Re-judge
      </button>
      {progress && (
        <span className="status" data-testid="rejudge-status">
          {progress.judgeVersion}:{' '}
          {progress.status === 'failed'
            ? `failed after ${progress.done} of ${progress.total} items`
            : `${progress.status} ${progress.done}/${progress.total}`}
          {progress.unparsed > 0 && ` · ${progress.unparsed} unreadable answers`}
          {` · judge ${usageText(progress.usage, 'judging')}`}
          {progress.error !== null && ` · ${progress.error}`}
        </span>
      )}
      {missing !== null && (
        <span className="status status-error" role="alert">
          {missing}
        </span>
      )}
      {start.error && <span className="status status-error">{start.error.message}</span>}
    </form>
  );
}
