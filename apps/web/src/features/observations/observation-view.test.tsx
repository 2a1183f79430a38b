import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ObservationView } from './observation-view';

afterEach(cleanup);

const xss =
  '<img src=x onerror=alert(1)><svg onload=alert(2)></svg><a href="javascript:alert(3)">x</a>';

describe('ObservationView', () => {
  it.each(['text', 'error', 'terminal', 'json'] as const)(
    'shows %s content with markup as text, creating no element from it',
    (kind) => {
      const { container } = render(
        <ObservationView observation={{ kind, content: xss, callId: null }} />,
      );
      const panel = screen.getByTestId('observation');
      expect(panel.getAttribute('data-kind')).toBe(kind);
      expect(panel.textContent).toContain(xss);
      expect(container.querySelector('img, svg, a, script, iframe')).toBeNull();
    },
  );

  it('does not turn URLs into links', () => {
    const { container } = render(
      <ObservationView
        observation={{ kind: 'text', content: 'see https://example.com/x', callId: 'call_1' }}
      />,
    );
    expect(container.querySelector('a')).toBeNull();
    expect(screen.getByText('answers call_1')).toBeTruthy();
  });

  it('renders a JSON observation as a tree two levels deep', () => {
    render(
      <ObservationView
        observation={{
          kind: 'json',
          content: '{"order":{"id":"W123","items":[{"sku":1}]}}',
          callId: null,
        }}
      />,
    );
    expect(screen.getByText('"W123"')).toBeTruthy();
    expect(screen.getByRole('button', { name: /items/ }).getAttribute('aria-expanded')).toBe(
      'false',
    );
  });

  it('marks an error observation as an error', () => {
    render(<ObservationView observation={{ kind: 'error', content: 'Traceback', callId: null }} />);
    expect(screen.getByTestId('observation').className).toContain('observation-error');
  });
});
