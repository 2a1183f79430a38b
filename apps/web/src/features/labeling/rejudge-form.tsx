import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { criteriaLeftUnscored, rejudgedCriteria } from '@terrarium/labels';
import { usageText } from '@terrarium/schema';
import { useEffect, useState } from 'react';
import { plural } from '../../app/format';
import { useTRPC } from '../../app/trpc';
import { newestVersion, VersionSelect } from '../rule-sets/rule-set-selects';

/** What the form reads of the queue: where its criteria come from, and their ids. */
export interface RejudgedQueue {
  ruleSet: { name: string; version: number } | null;
  criteria: readonly { id: string }[];
}

/**
 * What a re-judge with the picked version would leave unscored among the queue's criteria, or
 * null when it scores them all: labels and judge scores pair by criterion id, so a criterion the
 * version does not judge drops out of the before → after comparison (walk 52: walk-tool v2,
 * with only `facts`, stood preselected against a queue of default-tool's five criteria).
 */
export function unscoredNote(
  queue: RejudgedQueue,
  picked: { name: string; version: number | null },
  ruleSetCriteria: readonly { id: string; rule?: string | undefined }[],
): string | null {
  const left = criteriaLeftUnscored(queue.criteria, ruleSetCriteria);
  if (left.length === 0) return null;
  const which = `${picked.name} ${picked.version === null ? 'built-in' : `v${picked.version}`}`;
  const own =
    queue.ruleSet === null || queue.ruleSet.name === picked.name
      ? ''
      : ` This queue's criteria come from ${queue.ruleSet.name}.`;
  const judged = rejudgedCriteria(queue.criteria, ruleSetCriteria).map((criterion) => criterion.id);
  if (judged.length === 0) {
    return `${which} judges none of this queue's criteria (${left.join(', ')}): there is nothing to re-judge with it.${own}`;
  }
  return `${which} judges only ${judged.join(', ')} of this queue's criteria: a re-judge leaves ${plural(left.length, 'criterion', 'criteria')} unscored (${left.join(', ')}), since labels and judge scores pair by criterion id.${own}`;
}

/**
 * Starts a re-judge job of the queue's items with a rule-set version's criteria and follows it;
 * when it is done, its scores become the "after" judge version.
 */
export function RejudgeForm({
  queueId,
  queue,
  onDone,
}: {
  queueId: string;
  /** Undefined while it loads. */
  queue: RejudgedQueue | undefined;
  onDone: (judgeVersion: string) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const ruleSets = useQuery(trpc.rulesets.list.queryOptions());
  const [name, setName] = useState<string | null>(null);
  const own = queue?.ruleSet?.name;
  // The queue's own rule set first: its judge scores every criterion the labels have. Else (the
  // queue has the bench judge's dimensions) a saved rule set, else the first built-in, the one
  // the select shows (with nothing chosen, the select showed one and the button did nothing).
  const chosen =
    name ??
    ruleSets.data?.find((entry) => entry.name === own)?.name ??
    ruleSets.data?.find((entry) => entry.latestVersion !== null)?.name ??
    ruleSets.data?.[0]?.name ??
    null;
  const versions = useQuery({
    ...trpc.rulesets.versions.queryOptions({ name: chosen ?? '' }),
    enabled: chosen !== null,
  });
  const [version, setVersion] = useState<number | null>(null);
  const pickedVersion = version ?? newestVersion(versions.data);
  const picked = useQuery({
    ...trpc.rulesets.get.queryOptions({
      name: chosen ?? '',
      ...(pickedVersion === null ? {} : { version: pickedVersion }),
    }),
    enabled: chosen !== null && versions.data !== undefined,
  });
  const note =
    queue === undefined || picked.data === undefined || chosen === null
      ? null
      : unscoredNote(queue, { name: chosen, version: pickedVersion }, picked.data.ruleSet.criteria);
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
            {entry.name === own ? " (this queue's criteria)" : ''}
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
      {note !== null && (
        <p className="note" data-testid="rejudge-unscored">
          {note}
        </p>
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
