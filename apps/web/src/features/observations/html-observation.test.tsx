import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { HtmlObservation } from './html-observation';

afterEach(cleanup);

const page = '<h1>Checkout</h1><script>parent.document.title = "owned"</script>';

describe('HtmlObservation', () => {
  it('renders the page only inside an iframe with an empty sandbox', () => {
    const { container } = render(<HtmlObservation content={page} />);
    const frame = container.querySelector('iframe');
    expect(frame?.getAttribute('sandbox')).toBe('');
    expect(frame?.getAttribute('srcdoc')?.endsWith(page)).toBe(true);
    expect(frame?.getAttribute('srcdoc')).toContain("default-src 'none'");
    expect(container.querySelector('h1')).toBeNull();
    expect(container.querySelector('script')).toBeNull();
  });

  it('shows the source as text on request', () => {
    const { container } = render(<HtmlObservation content={page} />);
    fireEvent.click(screen.getByRole('button', { name: 'Source' }));
    expect(container.querySelector('iframe')).toBeNull();
    expect(container.querySelector('pre')?.textContent).toBe(page);
    expect(container.querySelector('h1')).toBeNull();
  });
});
