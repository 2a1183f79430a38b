import { cleanup, render } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AnsiText } from './ansi-text';
import { PlainText } from './plain-text';

// happy-dom has no layout engine: give scroll boxes the size a browser would, 400 px high.
beforeEach(() => {
  vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(400);
  vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(800);
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

function numberedLines(count: number): string {
  return Array.from({ length: count }, (_, index) => `line ${index + 1}`).join('\n');
}

describe('long text', () => {
  it('renders up to 2,000 lines whole, as one preformatted text in blocks of 40 lines', () => {
    const content = numberedLines(2000);
    const { container } = render(<PlainText content={content} />);
    expect(container.querySelector('pre')?.textContent).toBe(content);
    expect(container.querySelector('[data-virtualized]')).toBeNull();
    const blocks = [...container.querySelectorAll('pre > .line-block')];
    expect(blocks).toHaveLength(50);
    expect(blocks[1]?.textContent).toBe(`${numberedLines(80).split('\n').slice(40).join('\n')}\n`);
    expect(blocks[49]?.textContent?.endsWith('line 2000')).toBe(true);
  });

  it('keeps terminal output whole below 2,000 lines, colours and blocks alike', () => {
    const ESC = '\u001b';
    const { container } = render(<AnsiText content={`${ESC}[31m${numberedLines(41)}${ESC}[0m`} />);
    expect(container.querySelector('pre.terminal')?.textContent).toBe(numberedLines(41));
    expect(container.querySelectorAll('.line-block')).toHaveLength(2);
    expect(container.querySelectorAll('.line-block span[style]')).toHaveLength(41);
  });

  it('keeps only a window of lines in the DOM beyond 2,000 lines', () => {
    const { container } = render(<PlainText content={numberedLines(50_000)} />);
    expect(container.querySelector('pre')).toBeNull();
    const rendered = container.querySelectorAll('.virtual-line');
    expect(rendered.length).toBeGreaterThan(0);
    expect(rendered.length).toBeLessThan(100);
    expect(rendered[0]?.textContent).toBe('1line 1');
    expect(container.textContent).not.toContain('line 50000');
  });

  it('virtualizes long terminal output too, keeping its colours', () => {
    const ESC = '\u001b';
    const content = `${ESC}[31m${numberedLines(3000)}${ESC}[0m`;
    const { container } = render(<AnsiText content={content} />);
    const first = container.querySelector('.virtual-line span[style]');
    expect(first?.textContent).toBe('line 1');
    expect(container.querySelectorAll('.virtual-line').length).toBeLessThan(100);
  });
});
