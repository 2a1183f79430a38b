import {
  newQuickJSWASMModule,
  type QuickJSContext,
  type QuickJSWASMModule,
} from 'quickjs-emscripten';
import { z } from 'zod';
import type { CustomRuleInput, CustomRuleResult } from '../evaluate';

export interface SandboxLimits {
  timeoutMs: number;
  memoryMb: number;
  /** The interpreter's stack; deep recursion ends in a RangeError instead of crashing the host. */
  stackBytes?: number;
}

/** A custom rule failed; the message says why in words a rule author understands. */
export class CustomRuleError extends Error {
  override name = 'CustomRuleError';
}

const DEFAULT_STACK_BYTES = 512 * 1024;

/** Why a rule cannot score anything, whatever the item. */
export const NO_SCORE_FUNCTION =
  'the rule defines no function score(item) (write `function score(item) { … }` or `export function score`)';

const RuleOutput = z.union([
  z.number(),
  z.null(),
  z.strictObject({ score: z.number().nullable(), detail: z.string().optional() }),
]);

/**
 * The code the sandbox runs: the rule (CommonJS after esbuild), then one call of its `score`. A
 * check (no item) stops before the call: the rule's top level ran and it has a `score` to call.
 */
function harness(compiled: string, check: boolean): string {
  return `var module = { exports: {} }; var exports = module.exports;
${compiled}
;(function () {
  var fn = module.exports.score || module.exports.default ||
    (typeof score === 'function' ? score : undefined);
  if (typeof fn !== 'function') throw new TypeError(${JSON.stringify(NO_SCORE_FUNCTION)});
  if (${String(check)}) return 'null';
  var out = fn(JSON.parse(__TERRARIUM_ITEM__));
  // JSON has no NaN or Infinity: stringified they would read as null, "does not apply".
  var value = out !== null && typeof out === 'object' ? out.score : out;
  if (typeof value === 'number' && !isFinite(value))
    throw new TypeError('score(item) returned ' + value + ', not a number in [0, 1]');
  return JSON.stringify(out === undefined ? null : out);
})()`;
}

/**
 * Above this share of its memory limit, a rule that runs out of time is said to be filling memory:
 * QuickJS collects garbage more and more often as the heap nears its limit, so a rule that grows
 * its heap slowly usually meets the time limit first, and "timed out" alone sends its author
 * looking for a loop.
 */
const FILLING_MEMORY_SHARE = 0.5;

/**
 * QuickJS consults its interrupt handler only every few thousand interpreter steps, so a step that
 * is one long call into a built-in (`"x".repeat(1e6)` takes ~6 ms here) can carry a rule far past
 * its limit: walk 41 saw "timed out after 1 ms" on rules that each ran about a second. When the
 * overrun is that large, the message says when the rule was really stopped.
 */
function overrunNote(limits: SandboxLimits, stoppedAfterMs: number | null): string {
  if (stoppedAfterMs === null) return '';
  const overrun = stoppedAfterMs - limits.timeoutMs;
  if (overrun < 100 || stoppedAfterMs < 2 * limits.timeoutMs) return '';
  return ` (stopped only after ${Math.round(stoppedAfterMs).toLocaleString('en-US')} ms: the limit is checked between the rule's steps, and one of them ran long, such as a large String.repeat or allocation near the memory limit)`;
}

function describeError(
  error: unknown,
  limits: SandboxLimits,
  timedOut: boolean,
  memoryUsedBytes: number | null,
  stoppedAfterMs: number | null,
): string {
  const name =
    typeof error === 'object' && error !== null && 'name' in error ? String(error.name) : '';
  const message =
    typeof error === 'object' && error !== null && 'message' in error
      ? String(error.message)
      : String(error);
  if (timedOut || /interrupted/i.test(message)) {
    const limitBytes = limits.memoryMb * 1024 * 1024;
    const overrun = overrunNote(limits, stoppedAfterMs);
    if (memoryUsedBytes === null || memoryUsedBytes < FILLING_MEMORY_SHARE * limitBytes)
      return `timed out after ${limits.timeoutMs} ms${overrun}`;
    const usedMb = (memoryUsedBytes / 1024 / 1024).toFixed(1);
    return `timed out after ${limits.timeoutMs} ms${overrun} with ${usedMb} of its ${limits.memoryMb} MB of memory in use: it may be filling memory`;
  }
  if (/out of memory/i.test(message)) return `exceeded the memory limit of ${limits.memoryMb} MB`;
  // The harness's own refusal: no error class to name.
  if (message === NO_SCORE_FUNCTION) return message;
  if (/stack overflow|call stack size/i.test(message)) return 'stack overflow (recursion too deep)';
  const host =
    /^'(require|process|fetch|XMLHttpRequest|WebSocket|Deno|Bun|setTimeout|setInterval)' is not defined/.exec(
      message,
    );
  if (name === 'ReferenceError' && host)
    return `ReferenceError: ${host[1]} is not defined (a rule has no files, network, timers or process)`;
  return name === '' ? message : `${name}: ${message}`;
}

/** The bytes the context's runtime holds (QuickJS's own count), or null if it cannot say. */
function memoryInUse(context: QuickJSContext): number | null {
  try {
    const usage = context.runtime.computeMemoryUsage();
    const used: unknown = Reflect.get(Object(context.dump(usage)), 'memory_used_size');
    usage.dispose();
    return typeof used === 'number' ? used : null;
  } catch {
    // Counting needs a little memory of its own, which a runtime at its limit may not have.
    return null;
  }
}

export interface RunOptions {
  now?: () => number;
  /**
   * Called when the runtime fails its own teardown (after a stack overflow QuickJS cannot free
   * every object): the module has leaked memory and should not run many more rules.
   */
  onTeardownFailure?: () => void;
}

/**
 * Runs one compiled custom rule on one item inside a fresh QuickJS runtime (wasm): no host
 * functions, no modules, no `process`, `require`, `fetch` or timers; only the item, passed in as
 * JSON. Time is bounded by the interrupt handler, memory by the runtime's limit, recursion by its
 * stack limit; each ends in a CustomRuleError naming the limit. `QuickJsSandbox` runs rules one
 * after another in a module it replaces when needed.
 */
export function runInQuickJs(
  quickjs: QuickJSWASMModule,
  compiled: string,
  /** Null checks the rule without scoring: its top level runs and it must define `score`. */
  input: CustomRuleInput | null,
  limits: SandboxLimits,
  { now = Date.now, onTeardownFailure }: RunOptions = {},
): CustomRuleResult {
  const runtime = quickjs.newRuntime();
  let timedOut = false;
  let memoryUsedBytes: number | null = null;
  let stoppedAfterMs: number | null = null;
  try {
    runtime.setMemoryLimit(limits.memoryMb * 1024 * 1024);
    runtime.setMaxStackSize(limits.stackBytes ?? DEFAULT_STACK_BYTES);
    const started = now();
    const deadline = started + limits.timeoutMs;
    const context = runtime.newContext();
    runtime.setInterruptHandler(() => {
      const at = now();
      timedOut = at > deadline;
      if (timedOut) {
        stoppedAfterMs = at - started;
        // Counted now: once the error unwinds the rule's frames, reference counting frees what it held.
        memoryUsedBytes = memoryInUse(context);
      }
      return timedOut;
    });
    try {
      const item = context.newString(JSON.stringify(input));
      context.setProp(context.global, '__TERRARIUM_ITEM__', item);
      item.dispose();
      const result = context.evalCode(harness(compiled, input === null), 'custom-rule.js');
      if (result.error) {
        const error: unknown = context.dump(result.error);
        result.error.dispose();
        throw new CustomRuleError(
          describeError(error, limits, timedOut, memoryUsedBytes, stoppedAfterMs),
        );
      }
      const text: unknown = context.dump(result.value);
      result.value.dispose();
      if (typeof text !== 'string') throw new CustomRuleError('the rule returned nothing');
      const parsed = RuleOutput.safeParse(JSON.parse(text));
      if (!parsed.success)
        throw new CustomRuleError('score(item) must return a number, null or {score, detail}');
      const output = parsed.data;
      if (output === null || typeof output === 'number') return { score: output };
      return {
        score: output.score,
        ...(output.detail === undefined ? {} : { detail: output.detail }),
      };
    } finally {
      context.dispose();
    }
  } catch (error) {
    if (error instanceof CustomRuleError) throw error;
    // The runtime itself failed (e.g. allocation outside a JS call); still the rule's fault.
    throw new CustomRuleError(
      describeError(error, limits, timedOut, memoryUsedBytes, stoppedAfterMs),
    );
  } finally {
    try {
      runtime.dispose();
    } catch {
      // A runtime that hit its memory or stack limit can fail its own teardown checks; it is
      // dropped anyway, but what it could not free stays in the module's heap.
      onTeardownFailure?.();
    }
  }
}

/**
 * Runs custom rules one after another in one QuickJS module, and starts a new module after a
 * runtime fails its teardown: each such runtime leaves memory the module cannot reclaim, and after
 * about ten stack overflows the module could no longer run any rule, good ones included.
 */
export class QuickJsSandbox {
  private module: Promise<QuickJSWASMModule> | null = null;
  /** Modules started so far (a new one after each failed teardown). */
  modulesStarted = 0;

  constructor(
    private readonly load: () => Promise<QuickJSWASMModule> = newQuickJSWASMModule,
    /** The clock a rule's time limit is measured on (default: wall time, `Date.now`). */
    private readonly now?: () => number,
  ) {}

  async run(
    compiled: string,
    input: CustomRuleInput | null,
    limits: SandboxLimits,
  ): Promise<CustomRuleResult> {
    if (this.module === null) {
      this.module = this.load();
      this.modulesStarted++;
    }
    const running = this.module;
    return runInQuickJs(await running, compiled, input, limits, {
      ...(this.now === undefined ? {} : { now: this.now }),
      onTeardownFailure: () => {
        if (this.module === running) this.module = null;
      },
    });
  }
}
