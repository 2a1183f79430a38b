import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  judgeRepeatsNote,
  type BenchSplit,
  type BenchSummary,
  type JudgeConfig,
} from '@terrarium/schema';
import { useState } from 'react';
import { plural } from '../../app/format';
import { navigate } from '../../app/router';
import { useTRPC } from '../../app/trpc';
import { SimPicker } from '../compare/sim-picker';
import { startRunRequest } from './bench-forms';

const SPLITS: readonly BenchSplit[] = ['test', 'dev'];

/** Simulators × this bench version as a background job; opens the run page once queued. */
export function StartRunForm({
  bench,
  version,
  splits,
}: {
  bench: string;
  version: number;
  /** Items per split: a split without items is not offered. */
  splits: BenchSummary['splits'];
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const available = useQuery({
    ...trpc.simulate.available.queryOptions(),
    staleTime: Number.POSITIVE_INFINITY,
  });
  const [sims, setSims] = useState<string[]>([]);
  const [mode, setMode] = useState<'open' | 'closed'>('open');
  const [closedSteps, setClosedSteps] = useState('3');
  const [split, setSplit] = useState<BenchSplit>(
    splits.test === 0 && splits.dev > 0 ? 'dev' : 'test',
  );
  const [judge, setJudge] = useState('');
  const [judgeMode, setJudgeMode] = useState<JudgeConfig['mode']>('score');
  const [judgeRepeats, setJudgeRepeats] = useState('1');
  const [judgeTemperature, setJudgeTemperature] = useState('0');
  const [formError, setFormError] = useState<string | null>(null);
  const start = useMutation(
    trpc.bench.startRun.mutationOptions({
      onSuccess: async (run) => {
        await queryClient.invalidateQueries({ queryKey: trpc.bench.runs.queryKey() });
        await queryClient.invalidateQueries({ queryKey: trpc.bench.list.queryKey() });
        navigate({
          page: 'bench-run',
          runId: run.id,
          score: null,
          cell: null,
          item: null,
        });
      },
    }),
  );

  return (
    // Not a <form>: the simulator picker holds its own form for typed-in specs, and forms do not nest.
    <div className="bench-form" role="form" aria-label={`Run ${bench} v${version}`}>
      <SimPicker available={available.data ?? []} selected={sims} onChange={setSims} />
      <label className="field">
        Mode{' '}
        <select
          aria-label="Mode"
          value={mode}
          onChange={(event) => setMode(event.target.value === 'closed' ? 'closed' : 'open')}
        >
          <option value="open">open loop (real history)</option>
          <option value="closed">closed loop (own predictions)</option>
        </select>
      </label>
      {mode === 'closed' && (
        <label
          className="field"
          title="The simulator sees its own predictions for up to this many of the last turns of each item's history"
        >
          Own turns (k){' '}
          <input
            type="number"
            aria-label="Closed-loop steps"
            min={1}
            value={closedSteps}
            onChange={(event) => setClosedSteps(event.target.value)}
          />
        </label>
      )}
      <label className="field">
        Split{' '}
        <select
          aria-label="Split"
          value={split}
          onChange={(event) => setSplit(event.target.value === 'dev' ? 'dev' : 'test')}
        >
          {SPLITS.map((name) => (
            <option key={name} value={name} disabled={splits[name] === 0}>
              {name} ({plural(splits[name], 'item')})
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        Judge{' '}
        <input
          type="text"
          aria-label="Judge spec"
          className="mono judge-input"
          placeholder="optional: openai:http://127.0.0.1:8000/v1#judge"
          value={judge}
          onChange={(event) => setJudge(event.target.value)}
        />
      </label>
      {judge.trim() !== '' && (
        <>
          <label
            className="field"
            title="score: five dimensions and an Overall, 1-10; turing: shown the real and the predicted observation, does the judge tell which is real? pairwise: which of two simulators' predictions is closer to the real one (the first simulator against each other, each on side A for about half the items, both ways with an even k; judged once the run has ended, from its page)"
          >
            Judge mode{' '}
            <select
              aria-label="Judge mode"
              value={judgeMode}
              onChange={(event) => setJudgeMode(judgeModeOf(event.target.value))}
            >
              <option value="score">score</option>
              <option value="turing">turing</option>
              <option value="pairwise">pairwise</option>
            </select>
          </label>
          <label className="field" title="Judgings per item: with k > 1 the spread is reported">
            k{' '}
            <input
              type="number"
              aria-label="Judgings per item"
              min={1}
              max={10}
              value={judgeRepeats}
              onChange={(event) => setJudgeRepeats(event.target.value)}
            />
          </label>
          <label className="field">
            Temperature{' '}
            <input
              type="number"
              aria-label="Judge temperature"
              min={0}
              max={2}
              step={0.1}
              value={judgeTemperature}
              onChange={(event) => setJudgeTemperature(event.target.value)}
            />
          </label>
          <RepeatsNote
            mode={judgeMode}
            repeats={Number(judgeRepeats)}
            temperature={Number(judgeTemperature)}
          />
        </>
      )}
      <button
        type="button"
        className="primary"
        disabled={start.isPending}
        onClick={() => {
          const request = startRunRequest({
            sims,
            mode,
            closedSteps,
            split,
            judge,
            judgeMode,
            judgeRepeats,
            judgeTemperature,
          });
          setFormError(request.ok ? null : request.error);
          if (request.ok) start.mutate({ bench, version, ...request.value });
        }}
      >
        {start.isPending ? 'Starting…' : 'Start run'}
      </button>
      {formError !== null && (
        <p className="status status-error" role="alert">
          {formError}
        </p>
      )}
      {start.error && (
        <p className="status status-error" role="alert">
          Could not start the run: {start.error.message}
        </p>
      )}
    </div>
  );
}

/** What the judge's k will not do, as `bench run` says it; nothing while a field does not parse. */
function RepeatsNote(judge: Pick<JudgeConfig, 'mode' | 'repeats' | 'temperature'>) {
  const valid = Number.isSafeInteger(judge.repeats) && Number.isFinite(judge.temperature);
  const note = valid ? judgeRepeatsNote(judge) : null;
  return note === null ? null : (
    <p className="muted" role="note" data-testid="judge-repeats-note">
      {note.charAt(0).toUpperCase() + note.slice(1)}.
    </p>
  );
}

function judgeModeOf(value: string): JudgeConfig['mode'] {
  return value === 'turing' || value === 'pairwise' ? value : 'score';
}
