import type { SimulatedStep } from '@terrarium/schema';

/** A transition as `simulate.run` returns it; tests override what they look at. */
export function simulatedStep(overrides: Partial<SimulatedStep> = {}): SimulatedStep {
  return {
    step: 0,
    actor: 'agent',
    action: {
      type: 'tool_call',
      name: 'get_order_details',
      arguments: { order_id: '#W2378156' },
      callId: 'call_1',
    },
    real: { kind: 'json', content: '{"order_id":"#W2378156","status":"delivered"}', callId: null },
    predicted: {
      kind: 'json',
      content: '{"order_id":"#W2378156","status":"pending"}',
      callId: null,
    },
    reasoning: null,
    provenance: { backend: 'retrieval', cache: null, model: null },
    latencyMs: 2,
    usage: { inputTokens: 0, outputTokens: 0 },
    scores: {},
    error: null,
    ...overrides,
  };
}
