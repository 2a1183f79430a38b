import { describe, expect, it } from 'vitest';
import { loadItems } from '../testing';
import { classifyObservation } from './classify';
import { scalarValue } from './scalar';
import { scoreContentClasses } from './score';

const airline = await loadItems('tau2/airline');
const flightStatus = airline.filter((item) => item.tool === 'get_flight_status');
const calculations = airline.filter((item) => item.tool === 'calculate');

function score(predicted: string, item: (typeof airline)[number]): number {
  return scoreContentClasses(predicted, item.real, item.history, item.action).score;
}

describe('scalarValue', () => {
  it('reads short words, numbers and JSON scalars canonically', () => {
    expect(scalarValue('landed\n')).toBe('landed');
    expect(scalarValue('"landed"')).toBe('landed');
    expect(scalarValue('299.0')).toBe('299');
    expect(scalarValue('true')).toBe('true');
    expect(scalarValue('Transfer successful')).toBe('Transfer successful');
    expect(scalarValue('one two three four')).toBeNull();
    expect(scalarValue('[]')).toBeNull();
    expect(scalarValue('a\nb')).toBeNull();
  });
});

describe('short scalar observations on tau2 airline', () => {
  it('are the flight statuses and calculator results, classed as one deterministic value', () => {
    const statuses = flightStatus.map((item) => item.real);
    expect(statuses.filter((status) => status === 'available')).toHaveLength(12);
    expect(statuses.filter((status) => status === 'landed')).toHaveLength(3);
    expect(statuses).toHaveLength(15);
    expect(calculations.map((item) => item.real)).toEqual(['23553.0', '299.0', '201.0', '306.0']);
    for (const item of [...flightStatus, ...calculations]) {
      const classified = classifyObservation(item.real, item.history, item.action);
      expect(classified.mode).toBe('scalar');
      expect(classified.spans.map((span) => [span.class, span.text])).toEqual([
        ['deterministic', item.real],
      ]);
    }
  });

  it('score a wrong one-word status 0, the right one 1 (quoted or not)', () => {
    const landed = flightStatus.find((item) => item.real === 'landed');
    if (landed === undefined) throw new Error('no landed flight');
    expect(score('landed', landed)).toBe(1);
    expect(score('"landed"', landed)).toBe(1);
    expect(score('available', landed)).toBe(0);
    expect(score('cancelled', landed)).toBe(0);
    expect(score('Status: landed', landed)).toBe(0.5);
    const explanation = scoreContentClasses(
      'delayed',
      landed.real,
      landed.history,
      landed.action,
    ).explanation;
    expect(explanation.map((verdict) => verdict.why)).toEqual(['delayed instead of landed']);
  });

  it('score a calculator total by value: 299 for 299.0 is right, 300 is wrong', () => {
    const total = calculations.find((item) => item.real === '299.0');
    if (total === undefined) throw new Error('no 299.0');
    expect(score('299', total)).toBe(1);
    expect(score('300', total)).toBe(0);
  });

  it('give a changed word of a short message partial, contradicted credit', () => {
    const transfer = airline.find((item) => item.real === 'Transfer successful');
    if (transfer === undefined) throw new Error('no transfer');
    expect(score('Transfer failed', transfer)).toBe(0.5 * 0.75);
  });

  it('leave a bare timestamp to the metadata rule (form only)', () => {
    expect(classifyObservation('2024-05-15T15:00:00', []).mode).toBe('text');
  });
});
