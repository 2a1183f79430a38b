import type { Step } from '@terrarium/schema';
import { describe, expect, it } from 'vitest';
import { RecordError } from '../adapter';
import { domainOfBenchmark } from './domains';
import { isJsonValue } from './json-guards';
import { guessObservationKind } from './observation-kind';
import { inferToolSchemas, normalizeToolSchemas } from './tool-schemas';

describe('guessObservationKind', () => {
  it('sorts observations into error, json, terminal and text', () => {
    expect(guessObservationKind('Error: user not found')).toBe('error');
    expect(guessObservationKind('fine', { markedError: true })).toBe('error');
    expect(guessObservationKind(' {"a": [1, 2]} ')).toBe('json');
    expect(guessObservationKind('[1, 2, 3]')).toBe('json');
    expect(guessObservationKind('{not json}')).toBe('text');
    expect(guessObservationKind('42')).toBe('text');
    expect(guessObservationKind('\u001b[31mred\u001b[0m')).toBe('terminal');
    expect(guessObservationKind('total 0\n', { shellOutput: true })).toBe('terminal');
    expect(guessObservationKind("[('people',), ('poker_player',)]")).toBe('text');
  });
});

describe('inferToolSchemas', () => {
  it('types arguments from the values seen and requires those present in every call', () => {
    const steps: Pick<Step, 'action'>[] = [
      {
        action: {
          type: 'tool_call',
          name: 'book',
          arguments: { id: 'a', seats: 2, price: 10 },
          callId: null,
        },
      },
      {
        action: {
          type: 'tool_call',
          name: 'book',
          arguments: { id: 'b', seats: 1, price: 12.5, note: null },
          callId: null,
        },
      },
      { action: { type: 'tool_call', name: 'ping', arguments: 'not json', callId: null } },
      { action: { type: 'message', text: 'hi' } },
    ];
    expect(inferToolSchemas(steps)).toEqual([
      {
        type: 'function',
        function: {
          name: 'book',
          parameters: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              seats: { type: 'integer' },
              price: { type: 'number' },
              note: { type: 'null' },
            },
            required: ['id', 'seats', 'price'],
          },
        },
      },
      {
        type: 'function',
        function: { name: 'ping', parameters: { type: 'object', properties: {}, required: [] } },
      },
    ]);
  });

  it('lists every type seen for an argument', () => {
    const steps: Pick<Step, 'action'>[] = [
      { action: { type: 'tool_call', name: 'f', arguments: { x: 'a' }, callId: null } },
      { action: { type: 'tool_call', name: 'f', arguments: { x: [1] }, callId: null } },
    ];
    expect(inferToolSchemas(steps)[0]?.function.parameters).toEqual({
      type: 'object',
      properties: { x: { type: ['array', 'string'] } },
      required: ['x'],
    });
  });
});

describe('normalizeToolSchemas', () => {
  it('accepts the OpenAI shape, the bare shape and a JSON string of either', () => {
    const bare = {
      name: 'f',
      description: 'does f',
      parameters: { type: 'object', properties: {} },
    };
    const wrapped = { type: 'function', function: bare };
    const expected = [{ type: 'function', function: bare }];
    expect(normalizeToolSchemas([bare], 'tools')).toEqual(expected);
    expect(normalizeToolSchemas([wrapped], 'tools')).toEqual(expected);
    expect(normalizeToolSchemas(JSON.stringify([bare]), 'tools')).toEqual(expected);
  });

  it('names the broken entry', () => {
    expect(() => normalizeToolSchemas([{ function: { description: 'x' } }], 'tools')).toThrow(
      new RecordError('tools[0].function.name', 'expected a tool name'),
    );
  });
});

describe('domainOfBenchmark', () => {
  it('maps benchmark names to domains, tool when unknown', () => {
    expect(
      [
        'terminal_bench',
        'SWE-bench_Verified',
        'tau2_bench_airline',
        'BrowseComp',
        'WebArena',
        'AndroidWorld',
        'OSWorld',
        'spider',
        'alfworld',
        'mystery',
      ].map(domainOfBenchmark),
    ).toEqual([
      'terminal',
      'swe',
      'tool',
      'search',
      'web',
      'android',
      'os',
      'database',
      'text-game',
      'tool',
    ]);
  });
});

describe('isJsonValue', () => {
  it('walks 10,000 levels of nesting without overflowing the stack', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(isJsonValue(deep)).toBe(true);
    expect(isJsonValue({ a: [1, { b: undefined }] })).toBe(false);
    expect(isJsonValue({ a: Number.NaN })).toBe(false);
  });
});

describe('guessObservationKind for HTML', () => {
  it('marks a whole HTML document as html and leaves fragments inside other text alone', () => {
    expect(guessObservationKind('<!DOCTYPE html>\n<html><body>hi</body></html>')).toBe('html');
    expect(guessObservationKind('  <html lang="en"><head></head></html>')).toBe('html');
    expect(guessObservationKind('grep matched: <html> in index.html')).toBe('text');
    expect(guessObservationKind('<htmlfoo>')).toBe('text');
  });
});
