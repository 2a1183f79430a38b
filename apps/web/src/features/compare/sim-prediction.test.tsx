import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { SimPrediction } from './sim-prediction';
import { simulatedStep } from './simulated-step.fixture';

afterEach(cleanup);

const payload = '<img src=x onerror=alert(1)><script>alert(2)</script>';

describe('SimPrediction', () => {
  it.each(['text', 'terminal', 'json', 'error'] as const)(
    'shows a %s prediction holding markup as text, in the diff and rendered',
    (kind) => {
      const { container } = render(
        <SimPrediction
          sim="retrieval"
          simulated={simulatedStep({
            real: { kind, content: 'order shipped', callId: null },
            predicted: { kind, content: payload, callId: null },
            reasoning: `<b onmouseover=alert(3)>why</b>`,
          })}
        />,
      );
      expect(container.querySelector('img, script')).toBeNull();
      expect(container.querySelector('.diff-line-added')?.textContent).toBe(`+${payload}`);
      fireEvent.click(screen.getByRole('button', { name: 'Rendered' }));
      expect(screen.getByTestId('observation').textContent).toContain(payload);
      fireEvent.click(screen.getByRole('button', { name: /Reasoning/ }));
      expect(container.textContent).toContain('<b onmouseover=alert(3)>why</b>');
      expect(container.querySelector('img, script, b')).toBeNull();
    },
  );

  it('shows the content score, provenance, latency and tokens', () => {
    render(
      <SimPrediction
        sim="openai:http://127.0.0.1:8000/v1#m"
        simulated={simulatedStep({
          scores: { 'exact-match': 0, 'json-validity': 1, 'numeric-closeness': null, content: 0.4 },
          provenance: { backend: 'openai', cache: 'miss', model: 'm' },
          latencyMs: 123.4,
          usage: { inputTokens: 1200, outputTokens: 34 },
        })}
      />,
    );
    const panel = screen.getByTestId('sim-prediction');
    expect(panel.getAttribute('data-sim')).toBe('openai:http://127.0.0.1:8000/v1#m');
    expect(screen.getByTestId('score-content').textContent).toBe('40.0');
    expect([...panel.querySelectorAll('dt')].map((node) => node.textContent)).toEqual([
      'Content',
      'Exact match',
      'JSON validity',
    ]);
    expect(screen.getByTestId('sim-cache').textContent).toBe('cache miss');
    expect(panel.textContent).toContain('123 ms');
    expect(panel.textContent).toContain('1,200 in / 34 out tokens');
  });

  it('shows a failed call as its error alone: no diff, no latency, no tokens, no scores', () => {
    const { container } = render(
      <SimPrediction
        sim="openai:http://127.0.0.1:8000/v1#m"
        simulated={simulatedStep({
          real: { kind: 'text', content: '255.0', callId: null },
          predicted: { kind: 'text', content: '', callId: null },
          scores: {},
          provenance: { backend: 'openai:http://127.0.0.1:8000/v1#m', cache: null, model: null },
          latencyMs: 0,
          usage: { inputTokens: 0, outputTokens: 0 },
          error: 'request to http://127.0.0.1:8000/v1/chat/completions failed: refused',
        })}
      />,
    );
    const panel = screen.getByTestId('sim-prediction');
    expect(screen.getByRole('alert').textContent).toBe(
      'request to http://127.0.0.1:8000/v1/chat/completions failed: refused',
    );
    expect(panel.textContent).toContain('no prediction');
    expect(panel.textContent).not.toContain('0.0 ms');
    expect(panel.textContent).not.toContain('out tokens');
    expect(container.querySelector('.diff-line-removed, .diff-line-added')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Diff' })).toBeNull();
    expect(container.querySelector('dl.score-list')).toBeNull();
  });
});
