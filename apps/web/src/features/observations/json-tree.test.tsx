import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { JsonTree } from './json-tree';

afterEach(cleanup);

describe('JsonTree', () => {
  it('renders a nested object only after it is expanded', () => {
    const { container } = render(
      <JsonTree value={{ status: 'ok', outer: { inner: 'deep value' } }} />,
    );
    expect(screen.getByText('"ok"')).toBeTruthy();
    expect(screen.queryByText('"deep value"')).toBeNull();
    expect(container.querySelectorAll('li')).toHaveLength(2);

    fireEvent.click(screen.getByRole('button', { name: /outer/ }));
    expect(screen.getByText('"deep value"')).toBeTruthy();
    expect(container.querySelectorAll('li')).toHaveLength(3);

    fireEvent.click(screen.getByRole('button', { name: /outer/ }));
    expect(screen.queryByText('"deep value"')).toBeNull();
  });

  it('opens a 250-item array into groups of 100 and renders no item until a group opens', () => {
    const items = Array.from({ length: 250 }, (_, index) => `item-${index}`);
    render(<JsonTree value={items} />);
    const groups = screen.getAllByRole('button', { name: /\[\d+ … \d+\]/ });
    expect(groups.map((group) => group.textContent)).toEqual([
      '▸[0 … 99]',
      '▸[100 … 199]',
      '▸[200 … 249]',
    ]);
    expect(screen.queryByText('"item-150"')).toBeNull();

    const middle = groups[1];
    if (!middle) throw new Error('the middle group is missing');
    fireEvent.click(middle);
    expect(screen.getByText('"item-150"')).toBeTruthy();
    expect(screen.queryByText('"item-50"')).toBeNull();
    expect(screen.getAllByText(/^"item-\d+"$/)).toHaveLength(100);
  });

  it('shows markup inside strings as text', () => {
    const { container } = render(<JsonTree value={{ html: '<b onclick="x()">bold</b>' }} />);
    expect(screen.getByText('"<b onclick="x()">bold</b>"')).toBeTruthy();
    expect(container.querySelector('b')).toBeNull();
  });
});
