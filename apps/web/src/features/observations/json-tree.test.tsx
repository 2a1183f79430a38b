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

  it('opens the nodes that hold a searched word, down to it, and marks it whatever its case', () => {
    // An order as tau2 retail's get_order_details returns it: the match sits two levels down.
    const order = {
      order_id: '#W1267569',
      items: [
        { name: 'Gaming Mouse', item_id: '7420906769', options: { color: 'white' } },
        { name: 'Smart Thermostat', item_id: '4983901480', options: { color: 'black' } },
      ],
      payment_history: [{ transaction_type: 'payment', amount: 3016.46 }],
    };
    const { container } = render(<JsonTree value={order} marks={['thermostat']} />);
    expect([...container.querySelectorAll('mark')].map((mark) => mark.textContent)).toEqual([
      'Thermostat',
    ]);
    expect(screen.getByText(/Smart/).textContent).toBe('"Smart Thermostat"');
    // What holds no match stays closed, as without a search.
    expect(screen.queryByText('"Gaming Mouse"')).toBeNull();
    expect(screen.queryByText('"payment"')).toBeNull();
    expect(screen.getByRole('button', { name: /^options/ }).getAttribute('aria-expanded')).toBe(
      'false',
    );
  });

  it('marks a word in keys and numbers too, and marks nothing without words', () => {
    const { container } = render(
      <JsonTree
        value={{ outer: { user_id: 'mia_li_3668', zip: 94110 } }}
        marks={['USER', '9411']}
      />,
    );
    expect([...container.querySelectorAll('mark')].map((mark) => mark.textContent)).toEqual([
      'user',
    ]);
    cleanup();
    const plain = render(<JsonTree value={{ outer: { user_id: 'mia' } }} />);
    expect(plain.container.querySelectorAll('mark')).toHaveLength(0);
    expect(screen.queryByText('"mia"')).toBeNull();
  });
});
