import { describe, expect, it } from 'vitest';
import { invisibleDifference } from './invisible-difference';

describe('invisibleDifference', () => {
  it('shows a trailing newline that a line diff hides (a real `pwd` from SWE-agent)', () => {
    const path = '/__home__minghao__projects__LLM_CTF_Dataset_Dev__2015__CSAW-Quals__crypto__eps';
    expect(invisibleDifference(`${path}\n`, path)).toEqual({
      expected: '…_crypto__eps\\n',
      actual: '…_crypto__eps',
    });
  });

  it('shows line endings and tabs', () => {
    expect(invisibleDifference('a\r\nb', 'a\nb')).toEqual({
      expected: 'a\\r\\nb',
      actual: 'a\\nb',
    });
    expect(invisibleDifference('x\ty', 'x y')).toEqual({ expected: 'x\\ty', actual: 'x y' });
  });

  it('says nothing when the texts are equal or differ in what they say', () => {
    expect(invisibleDifference('same', 'same')).toBeNull();
    expect(invisibleDifference('255.0', '957.0')).toBeNull();
  });
});
