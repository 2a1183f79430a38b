import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { plural } from '../../app/format';
import { useTRPC } from '../../app/trpc';
import { criteriaNotCompared, formatStat, judgeDeltas } from './agreement-data';
import { RejudgeForm } from './rejudge-form';

function versionLabel(version: string | null): string {
  return version ?? 'bench judge';
}

function encode(version: string | null): string {
  return version ?? '';
}

function decode(value: string): string | null {
  return value === '' ? null : value;
}

/**
 * The loop's last step: agreement of the humans with one judge version against another, per
 * criterion, with intervals. Picking a version here also drives the charts above.
 */
export function RejudgePanel({
  queueId,
  judgeVersion,
  onJudgeVersion,
}: {
  queueId: string;
  judgeVersion: string | null;
  onJudgeVersion: (version: string | null) => void;
}) {
  const trpc = useTRPC();
  const queue = useQuery(trpc.labels.queue.queryOptions({ queueId }));
  const versions = useQuery(trpc.labels.judgeVersions.queryOptions({ queueId }));
  const list = versions.data ?? [];
  const [baseline, setBaseline] = useState<string | null | undefined>(undefined);
  const before = baseline === undefined ? (list[0] ?? null) : baseline;
  const beforeAgreement = useQuery(
    trpc.labels.agreement.queryOptions({ queueId, judgeVersion: before }),
  );
  const afterAgreement = useQuery(trpc.labels.agreement.queryOptions({ queueId, judgeVersion }));
  const flips = useQuery({
    ...trpc.labels.flips.queryOptions({ queueId, before, after: judgeVersion }),
    enabled: list.length > 0 && before !== judgeVersion,
  });
  const deltas =
    beforeAgreement.data && afterAgreement.data
      ? judgeDeltas(beforeAgreement.data, afterAgreement.data)
      : [];
  const notCompared = criteriaNotCompared(afterAgreement.data?.criteria ?? [], deltas);
  return (
    <section className="panel panel-body" aria-label="Judge versions">
      <h2>Judge versions: before → after</h2>
      <RejudgeForm queueId={queueId} queue={queue.data} onDone={onJudgeVersion} />
      {list.length === 0 ? (
        <p className="muted">No judge scores on this queue's run yet.</p>
      ) : (
        <>
          <label>
            Before{' '}
            <select
              value={encode(before)}
              onChange={(event) => setBaseline(decode(event.target.value))}
            >
              {list.map((version) => (
                <option key={encode(version)} value={encode(version)}>
                  {versionLabel(version)}
                </option>
              ))}
            </select>
          </label>{' '}
          <label>
            After{' '}
            <select
              value={encode(judgeVersion)}
              onChange={(event) => onJudgeVersion(decode(event.target.value))}
              data-testid="judge-after"
            >
              {list.map((version) => (
                <option key={encode(version)} value={encode(version)}>
                  {versionLabel(version)}
                </option>
              ))}
            </select>
          </label>
          <table className="table" aria-label="Agreement delta">
            <thead>
              <tr>
                <th>Criterion</th>
                <th>ρ before [95%]</th>
                <th>ρ after [95%]</th>
                <th>Δ</th>
              </tr>
            </thead>
            <tbody>
              {deltas.map((row) => (
                <tr key={row.criterion} data-testid={`delta-${row.criterion}`}>
                  <td>{row.criterion}</td>
                  <td className="mono">
                    {formatStat(row.before)} [{formatStat(row.beforeInterval[0])},{' '}
                    {formatStat(row.beforeInterval[1])}]
                  </td>
                  <td className="mono">
                    {formatStat(row.after)} [{formatStat(row.afterInterval[0])},{' '}
                    {formatStat(row.afterInterval[1])}]
                  </td>
                  <td className="mono" data-testid={`delta-value-${row.criterion}`}>
                    {row.delta === null
                      ? '—'
                      : `${row.delta >= 0 ? '+' : ''}${row.delta.toFixed(2)}`}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {notCompared.length > 0 && (
            <p className="note" data-testid="criteria-not-compared">
              Not compared: neither judge version scored {notCompared.join(', ')} (labels and judge
              scores pair by criterion id). A queue created with a rule set&apos;s criteria (New
              queue, Criteria) is compared with that rule set&apos;s judge on each of them.
            </p>
          )}
          {flips.data && (
            <table className="table" aria-label="Flipped items" data-testid="flips">
              <caption>{plural(flips.data.length, 'item')} where the judge moved</caption>
              <thead>
                <tr>
                  <th>Criterion</th>
                  <th>Item</th>
                  <th>Humans</th>
                  <th>Judge before → after</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {flips.data.map((flip) => (
                  <tr key={`${flip.criterion}/${flip.itemId}`}>
                    <td>{flip.criterion}</td>
                    <td className="mono" title={flip.itemId}>
                      {flip.itemId.slice(0, 10)}
                    </td>
                    <td className="mono">{flip.human}</td>
                    <td className="mono">
                      {flip.before} → {flip.after}
                    </td>
                    <td>{flip.closer === null ? 'as far' : flip.closer ? 'closer' : 'further'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}
