import { describe, expect, it } from 'vitest';
import { createRng } from '../sampling';
import { createDigitRenamer } from './rename-digits';

describe('createDigitRenamer', () => {
  it('renames each id the same way in every text of one example, and leaves short numbers, years and escapes', () => {
    const rename = createDigitRenamer(createRng(7));
    const prompt = rename(
      '{"order_id": "#W4817420", "user_id": "mia_li_3668", "qty": 12, "date": "2024-05-15", "note": "caf\\u00e9"}',
    );
    const target = rename('{"order_id": "#W4817420", "payment": "credit_card_3668"}');
    const order = /#W(\d+)/.exec(prompt)?.[1];
    const user = /mia_li_(\d+)/.exec(prompt)?.[1];
    expect(order).toHaveLength(7);
    expect(order).not.toBe('4817420');
    expect(user).toHaveLength(4);
    expect(user).not.toBe('3668');
    expect(target).toBe(`{"order_id": "#W${order}", "payment": "credit_card_${user}"}`);
    expect(prompt).toContain('"qty": 12');
    expect(prompt).toContain('"2024-05-15"');
    expect(prompt).toContain('caf\\u00e9');
  });

  it('gives two different ids two different replacements, and a fresh renamer fresh ones', () => {
    const random = createRng(1);
    const first = createDigitRenamer(random);
    const [a, b] = first('100 101').split(' ');
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[1-9]\d\d$/);
    const second = createDigitRenamer(random)('100 101');
    expect(second).not.toBe(`${a} ${b}`);
    expect(createDigitRenamer(createRng(3))('007')).toMatch(/^\d{3}$/);
  });
});
