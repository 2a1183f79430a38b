import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  RELEASE_SYNC,
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

function memoryLimitMessage(limits: SandboxLimits): string {
  return `exceeded the memory limit of ${limits.memoryMb} MB`;
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
    // Over the limit when time ran out: memory is what stopped it (walk 52 read "timed out after
    // 200 ms with 29.4 of its 2 MB of memory in use").
    if (memoryUsedBytes !== null && memoryUsedBytes > limitBytes) return memoryLimitMessage(limits);
    const overrun = overrunNote(limits, stoppedAfterMs);
    if (memoryUsedBytes === null || memoryUsedBytes < FILLING_MEMORY_SHARE * limitBytes)
      return `timed out after ${limits.timeoutMs} ms${overrun}`;
    const usedMb = (memoryUsedBytes / 1024 / 1024).toFixed(1);
    return `timed out after ${limits.timeoutMs} ms${overrun} with ${usedMb} of its ${limits.memoryMb} MB of memory in use: it may be filling memory`;
  }
  if (/out of memory/i.test(message)) return memoryLimitMessage(limits);
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

/**
 * QuickJS's own memory limit bounds each allocation, not their sum, in its WebAssembly builds: it
 * adds up allocations by their usable size, which Emscripten's libc reports as 0 (upstream
 * quickjs-emscripten issue 271). Walk 52 kept 400 MB under a 2 MB limit. So the sum is also
 * checked here, between the rule's steps, by counting what the runtime holds (a walk of its
 * objects), and the module's memory itself cannot grow far past the limit (`loadCappedModule`).
 *
 * The count's walk costs ~0.1 ms on a small heap and tens of ms near 200 MB, so it runs at most
 * every MEMORY_CHECK_MS and never more than a tenth of the rule's time.
 */
const MEMORY_CHECK_MS = 5;
const MEMORY_CHECK_SHARE = 0.1;

/**
 * A module's linear memory: the 16 MB the build starts with (its stack, QuickJS's own data, the
 * context's built-ins), plus twice the rule's limit, since an array or string being grown is
 * copied while the old one still lives. A rule that allocates faster than the checks between its
 * steps see is stopped there, as out of memory, whatever it does.
 */
const MODULE_BASE_BYTES = 16 * 1024 * 1024;

/**
 * The one global beyond ES2023 this package uses, declared for this module alone: the package
 * compiles without DOM or Node types (it does no I/O), and both give WebAssembly at run time.
 */
declare const WebAssembly: {
  Memory: new (descriptor: { initial: number; maximum: number }) => QuickJSMemory;
};
type QuickJSMemory = ReturnType<QuickJSWASMModule['getWasmMemory']>;
const WASM_PAGE_BYTES = 64 * 1024;

export function moduleMemoryCap(memoryMb: number): number {
  return MODULE_BASE_BYTES + 2 * memoryMb * 1024 * 1024;
}

/** A QuickJS module whose memory stops at `moduleMemoryCap(memoryMb)`. */
export function loadCappedModule(memoryMb: number): Promise<QuickJSWASMModule> {
  const memory = new WebAssembly.Memory({
    initial: MODULE_BASE_BYTES / WASM_PAGE_BYTES,
    maximum: Math.ceil(moduleMemoryCap(memoryMb) / WASM_PAGE_BYTES),
  });
  return newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmMemory: memory }));
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
  const limitBytes = limits.memoryMb * 1024 * 1024;
  let timedOut = false;
  let overLimit = false;
  let memoryUsedBytes: number | null = null;
  let stoppedAfterMs: number | null = null;
  try {
    runtime.setMemoryLimit(limitBytes);
    runtime.setMaxStackSize(limits.stackBytes ?? DEFAULT_STACK_BYTES);
    const started = now();
    const deadline = started + limits.timeoutMs;
    const context = runtime.newContext();
    let nextMemoryCheck = started + MEMORY_CHECK_MS;
    runtime.setInterruptHandler(() => {
      const at = now();
      timedOut = at > deadline;
      if (timedOut) {
        stoppedAfterMs = at - started;
        // Counted now: once the error unwinds the rule's frames, reference counting frees what it held.
        memoryUsedBytes = memoryInUse(context);
        return true;
      }
      if (at < nextMemoryCheck) return false;
      // The count runs code in the runtime (its dump), which may call this handler again.
      nextMemoryCheck = Number.POSITIVE_INFINITY;
      const used = memoryInUse(context);
      const counted = now();
      nextMemoryCheck = counted + Math.max(MEMORY_CHECK_MS, (counted - at) / MEMORY_CHECK_SHARE);
      overLimit = used !== null && used > limitBytes;
      if (overLimit) memoryUsedBytes = used;
      return overLimit;
    });
    try {
      const item = context.newString(JSON.stringify(input));
      context.setProp(context.global, '__TERRARIUM_ITEM__', item);
      item.dispose();
      const result = context.evalCode(harness(compiled, input === null), 'custom-rule.js');
      if (result.error) {
        const error: unknown = context.dump(result.error);
        result.error.dispose();
        if (overLimit) throw new CustomRuleError(memoryLimitMessage(limits));
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

/** Modules a sandbox keeps at once, one per memory limit its rules ask for. */
const MAX_MODULES = 4;
/**
 * A module whose memory grew past this is dropped after its run: WebAssembly memory never
 * shrinks, and a rule that once filled its heap would otherwise keep that much held for good.
 */
const RECYCLE_ABOVE_BYTES = 64 * 1024 * 1024;

/**
 * Runs custom rules one after another, in a QuickJS module per memory limit (its memory capped
 * near that limit: `loadCappedModule`). A module is replaced after a runtime fails its teardown
 * (each such runtime leaves memory the module cannot reclaim, and after about ten stack overflows
 * a module could no longer run any rule, good ones included) and after a rule grew its memory
 * past RECYCLE_ABOVE_BYTES.
 */
export class QuickJsSandbox {
  private readonly modules = new Map<number, Promise<QuickJSWASMModule>>();
  /** Modules started so far. */
  modulesStarted = 0;

  constructor(
    private readonly load: (memoryMb: number) => Promise<QuickJSWASMModule> = loadCappedModule,
    /** The clock a rule's time limit is measured on (default: wall time, `Date.now`). */
    private readonly now?: () => number,
  ) {}

  private moduleFor(memoryMb: number): Promise<QuickJSWASMModule> {
    const found = this.modules.get(memoryMb);
    // Re-inserted: the map's order is the order of last use.
    this.modules.delete(memoryMb);
    const module = found ?? this.load(memoryMb);
    if (found === undefined) this.modulesStarted++;
    this.modules.set(memoryMb, module);
    const oldest = this.modules.keys().next();
    if (this.modules.size > MAX_MODULES && oldest.done !== true) this.modules.delete(oldest.value);
    return module;
  }

  async run(
    compiled: string,
    input: CustomRuleInput | null,
    limits: SandboxLimits,
  ): Promise<CustomRuleResult> {
    const running = this.moduleFor(limits.memoryMb);
    const quickjs = await running;
    const drop = () => {
      if (this.modules.get(limits.memoryMb) === running) this.modules.delete(limits.memoryMb);
    };
    try {
      return runInQuickJs(quickjs, compiled, input, limits, {
        ...(this.now === undefined ? {} : { now: this.now }),
        onTeardownFailure: drop,
      });
    } finally {
      if (quickjs.getWasmMemory().buffer.byteLength > RECYCLE_ABOVE_BYTES) drop();
    }
  }
}
