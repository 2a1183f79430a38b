import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { SimName } from './sim-name';

afterEach(cleanup);

const MODEL = 'onnx:models/terrarium-wm-tiny';

describe('SimName', () => {
  it('tags the bundled model as trained on the demo files, with why on hover', () => {
    render(<SimName sim={MODEL} />);
    const tag = screen.getByTestId('trained-tag');
    expect(tag.textContent).toBe('trained on the demo files');
    expect(tag.getAttribute('title')).toMatch(/^Trained here on 4 of 5 tasks of the shipped/);
  });

  it('leaves the tag out where the page says per trajectory whether the model trained on it', () => {
    // Walk 48: beside Compare's "never trained on this task" the general tag read as a contradiction.
    render(<SimName sim={MODEL} split />);
    expect(screen.queryByTestId('trained-tag')).toBeNull();
    expect(screen.getByText(MODEL)).toBeDefined();
  });
});
