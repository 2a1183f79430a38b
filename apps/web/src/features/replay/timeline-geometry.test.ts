import type { StepMarker } from '@terrarium/schema';
import { describe, expect, it } from 'vitest';
import { legendFor, markerCategory, stepAtX } from './timeline-geometry';

function marker(overrides: Partial<StepMarker>): StepMarker {
  return {
    index: 0,
    actor: 'agent',
    actionType: 'tool_call',
    label: 'get_order',
    observationKind: 'json',
    reward: null,
    ...overrides,
  };
}

describe('timeline geometry', () => {
  it('maps a click position to the step under it, clamped to the ends', () => {
    expect(stepAtX(0, 1000, 10_000)).toBe(0);
    expect(stepAtX(500, 1000, 10_000)).toBe(5000);
    expect(stepAtX(999.99, 1000, 10_000)).toBe(9999);
    expect(stepAtX(1200, 1000, 17)).toBe(16);
    expect(stepAtX(-5, 1000, 17)).toBe(0);
    expect(stepAtX(100, 1000, 0)).toBe(0);
  });

  it('colours errors first, then user actions, then by action type', () => {
    expect(markerCategory(marker({ observationKind: 'error', actor: 'user' }))).toBe('error');
    expect(markerCategory(marker({ actor: 'user', actionType: 'tool_call' }))).toBe('user');
    expect(markerCategory(marker({ actionType: 'command', observationKind: 'terminal' }))).toBe(
      'command',
    );
    expect(markerCategory(marker({ actionType: 'message', observationKind: null }))).toBe(
      'message',
    );
  });

  it('lists in the legend only the kinds of mark the trajectory has, in the legend’s order', () => {
    const tau = [
      marker({ actor: 'user', actionType: 'message', observationKind: null }),
      marker({ actionType: 'tool_call' }),
      marker({ actionType: 'tool_call', observationKind: 'error' }),
      marker({ actionType: 'message', observationKind: null }),
    ];
    expect(legendFor(tau).map((entry) => entry.label)).toEqual([
      'tool call',
      'message',
      'user',
      'error',
    ]);
    expect(legendFor([])).toEqual([]);
  });
});
