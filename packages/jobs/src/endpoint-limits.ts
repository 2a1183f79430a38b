/** In-flight predictions allowed per endpoint in one worker, across all of its jobs. */
export interface EndpointLimitDefaults {
  openai: number;
  onnx: number;
  replay: number;
  retrieval: number;
}

/**
 * A remote endpoint takes a few requests at once; a local ONNX model runs one at a time on these
 * cores; replay and retrieval are lookups, whose units wait mostly for their scores: with many in
 * flight the scoring thread keeps working while PGlite holds the server thread for a batch's
 * writes (a replay-only run of 1,043 tau2 units: 351-401 units/s at 8, 404-460 at 64).
 */
export const DEFAULT_ENDPOINT_LIMITS: EndpointLimitDefaults = {
  openai: 4,
  onnx: 1,
  replay: 64,
  retrieval: 64,
};

/** Simulators that share an endpoint share its limit: `openai:URL#MODEL` counts against URL. */
export function endpointKey(sim: string): string {
  if (sim.startsWith('openai:'))
    return sim.slice(0, sim.includes('#') ? sim.indexOf('#') : undefined);
  return sim;
}

function limitOf(sim: string, limits: EndpointLimitDefaults): number {
  if (sim.startsWith('openai:')) return limits.openai;
  if (sim.startsWith('onnx:')) return limits.onnx;
  if (sim === 'retrieval') return limits.retrieval;
  return limits.replay;
}

class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(readonly limit: number) {}

  /** Resolves with a release function once a slot is free; rejects if `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        this.active++;
        let released = false;
        resolve(() => {
          if (released) return;
          released = true;
          this.active--;
          this.waiting.shift()?.();
        });
      };
      const onAbort = () => {
        const index = this.waiting.indexOf(grant);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(signal?.reason);
      };
      if (this.active < this.limit) {
        grant();
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(grant);
    });
  }
}

export interface EndpointLimits {
  /** Waits for a slot on the simulator's endpoint; call the returned function when done. */
  acquire(sim: string, signal?: AbortSignal): Promise<() => void>;
  limitFor(sim: string): number;
}

export function createEndpointLimits(
  overrides: Partial<EndpointLimitDefaults> = {},
): EndpointLimits {
  const limits = { ...DEFAULT_ENDPOINT_LIMITS, ...overrides };
  const semaphores = new Map<string, Semaphore>();
  return {
    limitFor: (sim) => limitOf(sim, limits),
    acquire(sim, signal) {
      const key = endpointKey(sim);
      let semaphore = semaphores.get(key);
      if (!semaphore) {
        semaphore = new Semaphore(Math.max(1, limitOf(sim, limits)));
        semaphores.set(key, semaphore);
      }
      return semaphore.acquire(signal);
    },
  };
}
