import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { diffJson } from './json-diff';
import { ObservationDiff } from './observation-diff';

afterEach(cleanup);

describe('diffJson', () => {
  it('lists changed, removed and added keys and array items by path', () => {
    expect(
      diffJson(
        { id: 'W1', total: 3, items: [{ sku: 1 }, { sku: 2 }], 'ship to': 'A' },
        { id: 'W1', total: 4, items: [{ sku: 1, qty: 2 }], 'ship to': 'A', extra: true },
      ),
    ).toEqual([
      { path: '$.total', type: 'changed', real: 3, predicted: 4 },
      { path: '$.items[0].qty', type: 'added', predicted: 2 },
      { path: '$.items[1]', type: 'removed', real: { sku: 2 } },
      { path: '$.extra', type: 'added', predicted: true },
    ]);
  });

  it('treats a value of another type as changed, and equal values as no change', () => {
    expect(diffJson({ a: [1] }, { a: { 0: 1 } })).toEqual([
      { path: '$.a', type: 'changed', real: [1], predicted: { 0: 1 } },
    ]);
    expect(diffJson({ a: [1, { b: null }] }, { a: [1, { b: null }] })).toEqual([]);
  });

  it('marks a changed key in the rendered diff of two JSON observations', () => {
    const { container } = render(
      <ObservationDiff
        real={{ kind: 'json', content: '{"status":"delivered","id":"W1"}', callId: null }}
        predicted={{ kind: 'text', content: '{"status":"pending","id":"W1"}', callId: null }}
      />,
    );
    const changes = [...container.querySelectorAll('[data-change]')];
    expect(
      changes.map((node) => [node.getAttribute('data-change'), node.getAttribute('data-path')]),
    ).toEqual([['changed', '$.status']]);
    expect(changes[0]?.textContent).toBe('changed $.status "delivered" → "pending"');
  });

  it('falls back to a text diff when the prediction is not JSON', () => {
    const { container } = render(
      <ObservationDiff
        real={{ kind: 'json', content: '{"status":"delivered"}', callId: null }}
        predicted={{ kind: 'text', content: 'Error: order not found', callId: null }}
      />,
    );
    expect(container.querySelector('[data-testid="json-diff"]')).toBeNull();
    expect(container.querySelector('.diff-line-added')?.textContent).toBe(
      '+Error: order not found',
    );
  });
});
