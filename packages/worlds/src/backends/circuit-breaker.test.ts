import type { Action, Observation } from '@terrarium/schema';
import { describe, expect, it } from 'vitest';
import { EndpointError } from '../openai/errors';
import { NO_USAGE, type Prediction, type SimContext, type WorldModel } from '../world-model';
import { createEndpointPool } from '../openai/endpoint-pool';
import { createUndiciTransport } from '../openai/undici-transport';
import { startStubServer } from '../openai/testing/stub-server';
import { CircuitOpenError, withCircuitBreaker, withPoolCircuitBreaker } from './circuit-breaker';

const context: SimContext = { domain: 'tool', task: null, systemPrompt: null, tools: [] };
const action: Action = { type: 'command', command: 'ls', interpreter: 'bash' };
const answer: Observation = { kind: 'text', content: 'a.txt', callId: null };

/** An endpoint whose behaviour the test sets call by call, counting the calls that reach it. */
class ScriptedEndpoint implements WorldModel {
  id = 'openai:http://127.0.0.1:9/v1#m';
  calls = 0;
  failWith: EndpointError | null = null;
  predict(): Promise<Prediction> {
    this.calls++;
    if (this.failWith !== null) return Promise.reject(this.failWith);
    return Promise.resolve({
      observation: answer,
      usage: NO_USAGE,
      latencyMs: 1,
      provenance: { backend: 'openai', cache: null },
    });
  }
}

/** No answer in time: the endpoint may be there but overloaded, so it takes several to open. */
const timedOut = new EndpointError('request timed out after 100 ms', 'timeout', 'u', 4);

describe('circuit breaker', () => {
  it('stops calling an unreachable endpoint after 5 failures, and tries again after the cool-down', async () => {
    let clock = 0;
    const endpoint = new ScriptedEndpoint();
    endpoint.failWith = timedOut;
    const model = withCircuitBreaker(endpoint, { now: () => clock });
    for (let i = 0; i < 5; i++) {
      await expect(model.predict(context, [], action)).rejects.toBe(timedOut);
    }
    await expect(model.predict(context, [], action)).rejects.toThrow(CircuitOpenError);
    await expect(model.predict(context, [], action)).rejects.toThrow(
      /could not be reached on 5 calls in a row \(last: request timed out after 100 ms\); it is not called again for 30 s/,
    );
    expect(endpoint.calls).toBe(5);

    // Back after the cool-down: one trial goes through and, succeeding, closes the circuit.
    clock = 30_001;
    endpoint.failWith = null;
    expect((await model.predict(context, [], action)).observation).toEqual(answer);
    expect((await model.predict(context, [], action)).observation).toEqual(answer);
    expect(endpoint.calls).toBe(7);
  });

  it('reopens at once when the trial fails, and ignores HTTP errors', async () => {
    let clock = 0;
    const endpoint = new ScriptedEndpoint();
    endpoint.failWith = timedOut;
    const model = withCircuitBreaker(endpoint, { now: () => clock, threshold: 2 });
    await expect(model.predict(context, [], action)).rejects.toBe(timedOut);
    await expect(model.predict(context, [], action)).rejects.toBe(timedOut);
    clock = 30_001;
    await expect(model.predict(context, [], action)).rejects.toBe(timedOut);
    await expect(model.predict(context, [], action)).rejects.toThrow(CircuitOpenError);
    expect(endpoint.calls).toBe(3);

    const answering = new ScriptedEndpoint();
    answering.failWith = new EndpointError('HTTP 500', 'http', 'u', 4, 500);
    const guarded = withCircuitBreaker(answering, { threshold: 2 });
    for (let i = 0; i < 4; i++) {
      await expect(guarded.predict(context, [], action)).rejects.toThrow('HTTP 500');
    }
    expect(answering.calls).toBe(4);
  });

  it('guards an endpoint pool (judges) over real HTTP: a closed port refuses once, then is not asked', async () => {
    const closed = await startStubServer(() => ({ type: 'hang' }));
    const deadUrl = closed.baseUrl;
    await closed.close();
    const pool = withPoolCircuitBreaker(
      createEndpointPool([{ baseUrl: deadUrl, model: 'judge' }], {
        transport: createUndiciTransport(),
        retry: { attempts: 2, baseDelayMs: 1 },
      }),
    );
    const outcomes: string[] = [];
    let lastMessage = '';
    for (let i = 0; i < 8; i++) {
      const error = await pool
        .complete({ messages: [{ role: 'user', content: 'score it' }], stream: false })
        .catch((caught: unknown) => caught);
      lastMessage = error instanceof Error ? error.message : '';
      outcomes.push(
        error instanceof CircuitOpenError
          ? 'open'
          : error instanceof EndpointError
            ? error.kind
            : 'ok',
      );
    }
    expect(outcomes).toEqual(['network', 'open', 'open', 'open', 'open', 'open', 'open', 'open']);
    // The pool's own retry ran once (2 attempts); the breaker then asked nothing more.
    expect(pool.stats()[0]?.requests).toBe(2);
    expect(lastMessage).toMatch(
      /could not be reached \(last: .*nothing accepted the connection; is the server running on that port\?; gave up after 2 attempts\); it is not called again for 30 s$/,
    );
  });
});
