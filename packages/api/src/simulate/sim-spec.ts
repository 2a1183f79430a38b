import { DEFAULT_ALLOWED_HOSTS } from '@terrarium/worlds';
import { bundledOnnxSpec } from './onnx-simulator';
import { SimulatorError } from './simulator-error';

export { SimulatorError } from './simulator-error';

export type ParsedSimSpec =
  | { kind: 'replay' }
  | { kind: 'retrieval' }
  | { kind: 'onnx'; path: string }
  | { kind: 'openai'; baseUrl: string; model: string };

/** Reads a SimSpec string (already validated by the `SimSpec` schema or not). */
export function parseSimSpec(spec: string, field = 'sim'): ParsedSimSpec {
  if (spec === 'replay') return { kind: 'replay' };
  if (spec === 'retrieval') return { kind: 'retrieval' };
  if (spec.startsWith('onnx:') && spec.length > 'onnx:'.length) {
    return { kind: 'onnx', path: spec.slice('onnx:'.length) };
  }
  const openai = /^openai:(https?:\/\/[^#\s]+)#(.+)$/.exec(spec);
  if (openai?.[1] !== undefined && openai[2] !== undefined) {
    return { kind: 'openai', baseUrl: openai[1], model: openai[2] };
  }
  throw new SimulatorError(
    field,
    `"${spec}" is not a simulator; expected replay, retrieval, onnx:PATH or openai:URL#MODEL`,
  );
}

function listFromEnv(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/** Hosts an `openai:` simulator may live on: `TERRARIUM_ENDPOINT_ALLOWLIST`, else this machine. */
export function endpointAllowlistFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const hosts = listFromEnv(env['TERRARIUM_ENDPOINT_ALLOWLIST']);
  return hosts.length === 0 ? [...DEFAULT_ALLOWED_HOSTS] : hosts;
}

/**
 * The API key to send an `openai:` endpoint, from `TERRARIUM_API_KEYS`: comma-separated
 * `ORIGIN=KEY` pairs (`http://127.0.0.1:8000=sk-local,https://api.example.com=sk-…`), matched on
 * the endpoint URL's origin, so each key goes only to the server it was issued by. Kept out of
 * simulator specs, which are stored with every run and shown on its page. `{ apiKey }` to spread
 * into an endpoint's config, or nothing.
 */
export function endpointApiKey(
  baseUrl: string,
  env: NodeJS.ProcessEnv = process.env,
): { apiKey?: string } {
  let origin: string;
  try {
    origin = new URL(baseUrl).origin;
  } catch {
    return {};
  }
  for (const entry of listFromEnv(env['TERRARIUM_API_KEYS'])) {
    const at = entry.indexOf('=', entry.indexOf('//') + 2);
    if (at === -1) continue;
    let keyOrigin: string;
    try {
      keyOrigin = new URL(entry.slice(0, at)).origin;
    } catch {
      continue;
    }
    if (keyOrigin === origin) return { apiKey: entry.slice(at + 1) };
  }
  return {};
}

/** What to tell a user whose endpoint refused the request for want of a key. */
export const API_KEY_HINT =
  'set TERRARIUM_API_KEYS=ORIGIN=KEY (comma-separated) where the server or CLI runs';

export interface AvailableSimulator {
  spec: string;
  label: string;
  description: string;
}

/** replay, retrieval, and the specs configured in `TERRARIUM_SIMULATORS` (comma-separated). */
export function availableSimulators(env: NodeJS.ProcessEnv = process.env): AvailableSimulator[] {
  const builtIn: AvailableSimulator[] = [
    {
      spec: 'replay',
      label: 'Replay',
      description:
        'The recorded observation for an identical history and action in the same dataset; a miss otherwise.',
    },
    {
      spec: 'retrieval',
      label: 'Retrieval (BM25)',
      description:
        "The observation of the nearest recorded transition of the same tool or command in the dataset's other tasks (the trajectory and other trials of its task are left out).",
    },
  ];
  const bundled = bundledOnnxSpec();
  if (bundled !== null) {
    builtIn.push({
      spec: bundled,
      label: 'terrarium-wm-tiny (bundled ONNX)',
      description:
        'The small world model trained from the shared trajectories and shipped with Terrarium, run here on the server with onnxruntime-node (the Models page and Compare also run it in the browser).',
    });
  }
  const configured = listFromEnv(env['TERRARIUM_SIMULATORS'])
    .filter((spec) => !builtIn.some((sim) => sim.spec === spec))
    .map((spec): AvailableSimulator => {
      const parsed = parseSimSpec(spec, 'TERRARIUM_SIMULATORS');
      switch (parsed.kind) {
        case 'openai':
          return {
            spec,
            label: `${parsed.model} (${new URL(parsed.baseUrl).host})`,
            description: `OpenAI-compatible endpoint ${parsed.baseUrl}, model ${parsed.model}.`,
          };
        case 'onnx':
          return {
            spec,
            label: `ONNX ${parsed.path}`,
            description: `Local ONNX model ${parsed.path}.`,
          };
        default:
          return { spec, label: spec, description: spec };
      }
    });
  return [...builtIn, ...configured];
}
