import { useQuery } from '@tanstack/react-query';
import {
  DEFAULT_EXAMPLE,
  OBSERVATION_MAX_TOKENS,
  PROMPT_FORMAT_VERSION,
  type FinishReason,
  type PromptNeighbor,
} from '@terrarium/inference';
import type { ExecutionProviderChoice, ModelVariant } from '@terrarium/inference/web';
import { DOMAINS, type Domain } from '@terrarium/schema';
import { useRef, useState } from 'react';
import { useTRPC, useTRPCClient } from '../../app/trpc';
import { formatCount } from '../../app/format';
import type { SimulatorOption } from '../compare/sim-picker';
import { decodeInBrowser, loadBrowserModel, type ModelSource } from './browser-model';
import { ModelSourcePicker } from './model-source-picker';
import { providerFallbackNotice } from './provider-fallback';
import { actionFromText, historyFromText } from './playground-input';
import { streamFromServer } from './server-stream';
import { finishInWords, serverFinish, type Finish } from './finish-words';

type Where = 'browser' | 'server';

/** The default example (packages/inference DEFAULT_EXAMPLE): a tau2 call run against the demo data. */
const EXAMPLE_ACTION = JSON.stringify(
  DEFAULT_EXAMPLE.action.type === 'tool_call'
    ? { name: DEFAULT_EXAMPLE.action.name, arguments: DEFAULT_EXAMPLE.action.arguments }
    : DEFAULT_EXAMPLE.action,
);

interface Outcome {
  where: Where;
  /** `webgpu` or `wasm` in the browser; the simulator spec on the server. */
  runtime: string;
  tokens: number[] | null;
  pieces: number;
  tokensPerSecond: number | null;
  finish: Finish;
  detail: string;
  /** Set when WebGPU was asked for and the run fell back to wasm. */
  fallback: string | null;
  /** Set when int8 was asked for and the folder had none. */
  variantNote: string | null;
  /** The prompt text the model read (in the browser). */
  prompt: string | null;
  /** The retrieved transitions the prompt showed (in the browser or on the server), with their dataset. */
  neighbors: { dataset: string; shown: PromptNeighbor[] } | null;
}

/** No retrieved context: the model sees only the action (the ablation of the evaluation table). */
const NO_NEIGHBORS = '';

/** The dataset the default example's neighbors come from: the demo's when loaded, else a tau2 one. */
function defaultNeighborDataset(datasets: readonly { id: string; name: string }[]): string {
  return (
    datasets.find((dataset) => dataset.name === DEFAULT_EXAMPLE.dataset)?.id ??
    datasets.find((dataset) => dataset.name.includes('tau2'))?.id ??
    datasets[0]?.id ??
    NO_NEIGHBORS
  );
}

type RunState =
  | { status: 'idle' }
  | { status: 'loading' }
  | { status: 'streaming'; startedAt: number }
  | { status: 'done'; outcome: Outcome }
  | { status: 'stopped' }
  | { status: 'error'; message: string };

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * One (history, action) in, the prediction streamed out, token by token: in this browser with
 * onnxruntime-web (the bundled model or a folder from disk), or on the server through its
 * OpenAI-compatible endpoint.
 */
export function Playground({
  available,
  servedModels,
}: {
  available: readonly SimulatorOption[];
  servedModels: readonly string[];
}) {
  const [where, setWhere] = useState<Where>('browser');
  const [source, setSource] = useState<ModelSource | null>(
    servedModels[0] === undefined ? null : { kind: 'served', name: servedModels[0] },
  );
  const [executionProvider, setExecutionProvider] = useState<ExecutionProviderChoice>('auto');
  const [variant, setVariant] = useState<ModelVariant>('int8');
  const trpc = useTRPC();
  const client = useTRPCClient();
  const datasets = useQuery(trpc.datasets.list.queryOptions());
  // null: not chosen yet, so the default follows the datasets as they load.
  const [neighborDataset, setNeighborDataset] = useState<string | null>(null);
  const neighborsFrom = neighborDataset ?? defaultNeighborDataset(datasets.data ?? []);
  const [serverSim, setServerSim] = useState(
    available.find((option) => option.spec.startsWith('onnx:'))?.spec ?? 'retrieval',
  );
  const [dataset, setDataset] = useState('');
  // The bundled model (and any retrieval-augmented ONNX folder) on the server reads recorded
  // neighbors as it does in this browser; replay, retrieval and endpoints have no such prompt.
  const serverReadsNeighbors = serverSim.startsWith('onnx:');
  const datasetName = (id: string) =>
    (datasets.data ?? []).find((option) => option.id === id)?.name ?? id;
  const [domain, setDomain] = useState<Domain>(DEFAULT_EXAMPLE.domain);
  const [earlierAction, setEarlierAction] = useState('');
  const [earlierObservation, setEarlierObservation] = useState('');
  const [action, setAction] = useState(EXAMPLE_ACTION);
  // What the user typed, kept as typed; the decode uses it clamped to 1..OBSERVATION_MAX_TOKENS and
  // the field says so when it differs.
  const [maxTokensText, setMaxTokensText] = useState('256');
  const typedTokens = Math.trunc(Number(maxTokensText));
  const maxTokens = Number.isFinite(typedTokens)
    ? Math.min(Math.max(typedTokens, 1), OBSERVATION_MAX_TOKENS)
    : 256;
  const [stopCycles, setStopCycles] = useState(true);
  // null: the prompt is rendered from the fields (and the neighbors); text: decoded as typed.
  const [promptText, setPromptText] = useState<string | null>(null);
  const [text, setText] = useState('');
  const [run, setRun] = useState<RunState>({ status: 'idle' });
  const controller = useRef<AbortController | null>(null);
  const busy = run.status === 'loading' || run.status === 'streaming';

  const predict = async () => {
    controller.current?.abort();
    const abort = new AbortController();
    controller.current = abort;
    setText('');
    const history = historyFromText(earlierAction, earlierObservation, domain);
    const current = actionFromText(action, domain);
    // Pieces are shown once per frame: a render per token would take the main thread, where
    // onnxruntime-web decodes, between every two tokens.
    let pending = '';
    let frame: number | null = null;
    const flush = () => {
      frame = null;
      const pieces = pending;
      pending = '';
      if (!abort.signal.aborted && pieces !== '') setText((previous) => previous + pieces);
    };
    const onText = (piece: string) => {
      pending += piece;
      frame ??= requestAnimationFrame(flush);
    };
    try {
      if (where === 'browser') {
        if (source === null) throw new Error('choose a model folder first');
        setRun({ status: 'loading' });
        const model = await loadBrowserModel(source, executionProvider, { variant });
        // The model reads the nearest recorded transitions: the server finds them, the decoding
        // stays here.
        const found =
          promptText === null && neighborsFrom !== NO_NEIGHBORS
            ? await client.models.neighbors.query(
                { dataset: neighborsFrom, domain, action: current, history },
                { signal: abort.signal },
              )
            : null;
        setRun({ status: 'streaming', startedAt: performance.now() });
        const decode = await decodeInBrowser(model, {
          domain,
          history,
          action: current,
          neighbors: found?.neighbors ?? [],
          ...(promptText === null ? {} : { prompt: promptText }),
          maxTokens,
          stopCycles,
          signal: abort.signal,
          onToken: onText,
        });
        if (frame !== null) cancelAnimationFrame(frame);
        flush();
        setRun({
          status: 'done',
          outcome: {
            where,
            runtime: decode.executionProvider,
            variantNote: model.variantNote,
            neighbors:
              found === null ? null : { dataset: found.dataset.name, shown: found.neighbors },
            tokens: decode.tokens,
            prompt: decode.prompt,
            pieces: decode.tokens.length,
            tokensPerSecond: decode.tokensPerSecond,
            finish: { vocabulary: 'decoder', reason: decode.finishReason },
            detail: `${decode.model} (${decode.variant}, prompt format ${PROMPT_FORMAT_VERSION}), onnxruntime-web ${decode.executionProvider}${
              decode.executionProvider === 'wasm' ? `, ${decode.wasmThreads} thread(s)` : ''
            } in a Web Worker, prompt ${decode.promptTokens} tokens${
              decode.grammar === 'json' ? ', output held to JSON' : ''
            }${finishDetail(decode)}`,
            fallback: providerFallbackNotice(
              executionProvider,
              decode.executionProvider,
              decode.fallbackReason,
            ),
          },
        });
      } else {
        const startedAt = performance.now();
        setRun({ status: 'streaming', startedAt });
        // A local model reads its neighbors from the picked dataset (NO_NEIGHBORS is empty: none),
        // found by the server; replay and retrieval answer from the dataset typed for them.
        const drawsOn = serverReadsNeighbors ? neighborsFrom : dataset.trim();
        const result = await streamFromServer({
          model: serverSim,
          context: { domain, task: null, systemPrompt: null, tools: [] },
          history,
          action: current,
          maxTokens,
          ...(drawsOn === '' ? {} : { dataset: drawsOn }),
          neighbors: serverReadsNeighbors,
          signal: abort.signal,
          onText,
        });
        if (frame !== null) cancelAnimationFrame(frame);
        flush();
        const seconds = (performance.now() - startedAt) / 1000;
        const generated = result.usage?.completionTokens ?? null;
        setRun({
          status: 'done',
          outcome: {
            where,
            runtime: serverSim,
            tokens: null,
            prompt: null,
            fallback: null,
            variantNote: null,
            neighbors:
              result.neighbors === null
                ? null
                : { dataset: datasetName(neighborsFrom), shown: result.neighbors },
            pieces: result.pieces,
            tokensPerSecond: generated !== null && seconds > 0 ? generated / seconds : null,
            finish: serverFinish(serverSim, result.provenance, result.finishReason),
            detail: `POST /v1/chat/completions, ${result.pieces} streamed piece(s)${
              result.usage === null
                ? ''
                : `, ${result.usage.promptTokens} prompt / ${result.usage.completionTokens} completion tokens`
            }`,
          },
        });
      }
    } catch (error) {
      if (!abort.signal.aborted) setRun({ status: 'error', message: messageOf(error) });
      // Stopped by the user (not replaced by a newer prediction): the text so far stays shown.
      else if (controller.current === abort) setRun({ status: 'stopped' });
    }
  };

  return (
    <section className="panel playground" data-testid="playground">
      <header className="panel-header">
        <h3>Playground</h3>
        <span className="muted">one (history, action) in, the observation streamed out</span>
      </header>
      <div className="panel-body">
        <form
          className="playground-form"
          onSubmit={(event) => {
            event.preventDefault();
            void predict();
          }}
        >
          <fieldset className="playground-where">
            <legend>Run</legend>
            <label>
              <input
                type="radio"
                name="where"
                checked={where === 'browser'}
                onChange={() => setWhere('browser')}
              />{' '}
              in this browser
            </label>
            <label>
              <input
                type="radio"
                name="where"
                checked={where === 'server'}
                onChange={() => setWhere('server')}
              />{' '}
              on the server
            </label>
          </fieldset>
          <div className="playground-row">
            {where === 'browser' ? (
              <ModelSourcePicker
                served={servedModels}
                onSource={setSource}
                executionProvider={executionProvider}
                onExecutionProvider={setExecutionProvider}
                variant={variant}
                onVariant={setVariant}
              />
            ) : (
              <>
                <label>
                  Simulator{' '}
                  <select value={serverSim} onChange={(event) => setServerSim(event.target.value)}>
                    {available.map((option) => (
                      <option key={option.spec} value={option.spec}>
                        {option.label}
                      </option>
                    ))}
                  </select>
                </label>
                {(serverSim === 'replay' || serverSim === 'retrieval') && (
                  <label>
                    Dataset{' '}
                    <input
                      value={dataset}
                      placeholder="name or id"
                      onChange={(event) => setDataset(event.target.value)}
                    />
                  </label>
                )}
              </>
            )}
          </div>
          {(where === 'browser' || serverReadsNeighbors) && (
            <div className="playground-row">
              <label
                title={
                  where === 'browser'
                    ? 'the model reads the 2 nearest recorded transitions of this dataset; the server finds them, the model runs here'
                    : 'the model reads the 2 nearest recorded transitions of this dataset; the server finds them and runs the model'
                }
              >
                Retrieved context from{' '}
                <select
                  data-testid="neighbor-dataset"
                  value={neighborsFrom}
                  onChange={(event) => setNeighborDataset(event.target.value)}
                >
                  {(datasets.data ?? []).map((option) => (
                    <option key={option.id} value={option.id}>
                      {option.name}
                    </option>
                  ))}
                  <option value={NO_NEIGHBORS}>none (the action alone)</option>
                </select>
              </label>
              {where === 'browser' && (
                <label title="when the output starts writing the same tokens back to back (three copies or more over 48 tokens), decoding ends there, and with retrieved context the answer ends with the first neighbor's; unchecked, the model runs on to the budget">
                  <input
                    type="checkbox"
                    data-testid="stop-cycles"
                    checked={stopCycles}
                    onChange={(event) => setStopCycles(event.target.checked)}
                  />{' '}
                  Stop an output that runs in circles
                </label>
              )}
            </div>
          )}
          <div className="playground-row">
            <label>
              Domain{' '}
              <select
                value={domain}
                onChange={(event) => {
                  const found = DOMAINS.find((candidate) => candidate === event.target.value);
                  if (found !== undefined) setDomain(found);
                }}
              >
                {DOMAINS.map((candidate) => (
                  <option key={candidate} value={candidate}>
                    {candidate}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Max tokens{' '}
              <input
                type="number"
                data-testid="max-tokens"
                min={1}
                max={OBSERVATION_MAX_TOKENS}
                value={maxTokensText}
                onChange={(event) => setMaxTokensText(event.target.value)}
              />
              {String(maxTokens) !== maxTokensText.trim() && (
                <span className="status status-error" data-testid="max-tokens-clamped">
                  {' '}
                  1 to {formatCount(OBSERVATION_MAX_TOKENS)}: predicting with{' '}
                  {formatCount(maxTokens)}
                </span>
              )}
            </label>
          </div>
          <label className="playground-field">
            Earlier action (optional)
            <input
              className="mono"
              value={earlierAction}
              onChange={(event) => setEarlierAction(event.target.value)}
            />
          </label>
          <label className="playground-field">
            Its observation
            <input
              className="mono"
              value={earlierObservation}
              disabled={earlierAction.trim() === ''}
              onChange={(event) => setEarlierObservation(event.target.value)}
            />
          </label>
          <label className="playground-field">
            Action
            <textarea
              className="mono"
              data-testid="playground-action"
              rows={3}
              value={action}
              onChange={(event) => setAction(event.target.value)}
            />
          </label>
          {action === EXAMPLE_ACTION && (
            <p className="muted" data-testid="example-recall-note">
              This call is recorded in {DEFAULT_EXAMPLE.recordedIn.tasks} tau2-bench telecom tasks,{' '}
              {DEFAULT_EXAMPLE.recordedIn.trained} of which the bundled model trained on: its answer
              to it is mostly recall. Change an id to see what it does with a call it never saw; the
              held-out figures below measure tasks it never saw.
            </p>
          )}
          {where === 'browser' && (
            <label className="playground-field">
              <span>
                <input
                  type="checkbox"
                  data-testid="edit-prompt"
                  checked={promptText !== null}
                  onChange={(event) =>
                    setPromptText(
                      event.target.checked
                        ? run.status === 'done' && run.outcome.prompt !== null
                          ? run.outcome.prompt
                          : ''
                        : null,
                    )
                  }
                />{' '}
                Edit the prompt text the model reads (decoded as typed: no fields, no retrieval)
              </span>
              {promptText !== null && (
                <textarea
                  className="mono"
                  data-testid="prompt-text"
                  rows={8}
                  value={promptText}
                  onChange={(event) => setPromptText(event.target.value)}
                />
              )}
            </label>
          )}
          <div className="playground-row">
            <button
              type="submit"
              className="primary"
              disabled={
                busy ||
                (promptText === null ? action.trim() === '' : promptText === '') ||
                (where === 'browser' && source === null)
              }
            >
              {run.status === 'loading' ? 'Loading the model…' : busy ? 'Predicting…' : 'Predict'}
            </button>
            {busy && (
              <button type="button" onClick={() => controller.current?.abort()}>
                Stop
              </button>
            )}
          </div>
        </form>
        {run.status === 'error' && (
          <p className="status status-error" role="alert" data-testid="playground-error">
            Could not predict: {run.message}
          </p>
        )}
        {(text !== '' ||
          run.status === 'done' ||
          run.status === 'streaming' ||
          run.status === 'stopped') && (
          <pre
            className="playground-output mono"
            data-testid="prediction-stream"
            data-status={run.status}
          >
            {text}
          </pre>
        )}
        {run.status === 'done' && <OutcomeLine outcome={run.outcome} />}
        {run.status === 'stopped' && (
          <p className="note" role="status" data-testid="playground-stopped">
            Stopped: the worker ended the decode after the text above.
          </p>
        )}
      </div>
    </section>
  );
}

function OutcomeLine({ outcome }: { outcome: Outcome }) {
  return (
    <div className="playground-outcome" data-testid="playground-outcome">
      <span>
        Ran on{' '}
        <strong data-testid="execution-provider" data-where={outcome.where}>
          {outcome.runtime}
        </strong>
      </span>
      <span title="Tokens the model generated, per second; the prompt's tokens are not counted">
        <strong data-testid="tokens-per-second">
          {outcome.tokensPerSecond === null ? '–' : outcome.tokensPerSecond.toFixed(0)}
        </strong>{' '}
        output tokens/s
      </span>
      <span title={`finish reason: ${outcome.finish.reason}`}>
        stopped at: {finishInWords(outcome.finish)}
      </span>
      <span className="muted">{outcome.detail}</span>
      {outcome.fallback !== null && (
        <p className="note" role="status" data-testid="provider-fallback">
          {outcome.fallback}
        </p>
      )}
      {outcome.variantNote !== null && (
        <p className="note" role="status" data-testid="variant-note">
          {outcome.variantNote}
        </p>
      )}
      {outcome.neighbors !== null && (
        <details data-testid="prompt-neighbors">
          <summary>
            {outcome.neighbors.shown.length} retrieved transition(s) from{' '}
            {outcome.neighbors.dataset} in the prompt
          </summary>
          <ol className="mono">
            {outcome.neighbors.shown.map((neighbor, i) => (
              <li key={i}>
                <div>{JSON.stringify(neighbor.action)}</div>
                <div className="muted">{neighbor.observation}</div>
              </li>
            ))}
          </ol>
        </details>
      )}
      {outcome.prompt !== null && (
        <details>
          <summary>the prompt the model read</summary>
          <pre className="mono" data-testid="decoded-prompt">
            {outcome.prompt}
          </pre>
        </details>
      )}
      {outcome.tokens !== null && (
        <details>
          <summary>{outcome.tokens.length} output token ids</summary>
          <code className="mono" data-testid="decode-token-ids">
            {JSON.stringify(outcome.tokens)}
          </code>
        </details>
      )}
    </div>
  );
}

/** What the outcome line adds about how the decode ended, in the user's words. */
function finishDetail({
  finishReason,
  closing,
  referenceTail,
}: {
  finishReason: FinishReason;
  closing: string;
  referenceTail: string;
}): string {
  switch (finishReason) {
    case 'reference':
      return ', the first neighbor’s answer as it is (longer than the context leaves)';
    case 'cycle': {
      const stopped = ', stopped where the output began repeating itself back to back';
      if (referenceTail !== '') {
        return `${stopped}; from where it first left the first neighbor’s answer, the rest of that answer (${referenceTail.length} characters)`;
      }
      return closing === '' ? stopped : `${stopped}, closed with ${closing}`;
    }
    default:
      return closing === '' ? '' : `, closed at the token budget with ${closing}`;
  }
}
