import { describe, expect, it } from 'vitest';
import { BUNDLED_BROWSER_SIM } from '../models/browser-sim-spec';
import { forkSims } from './fork-sims';

const SERVER = [
  { spec: 'replay', label: 'replay', description: '' },
  { spec: 'retrieval', label: 'retrieval', description: '' },
  { spec: 'onnx:models/terrarium-wm-tiny', label: 'Bundled model', description: '' },
];
const ENDPOINT = 'openai:http://127.0.0.1:4899/v1#echo';

describe('forkSims', () => {
  it("offers the server's simulators and the page's endpoints, never replay or the browser model", () => {
    const sims = forkSims(
      [...SERVER, BUNDLED_BROWSER_SIM],
      ['replay', BUNDLED_BROWSER_SIM.spec, ENDPOINT, 'retrieval'],
    );
    expect(sims.options.map((option) => [option.spec, option.label])).toEqual([
      ['retrieval', 'retrieval'],
      ['onnx:models/terrarium-wm-tiny', 'Bundled model'],
      [ENDPOINT, `${ENDPOINT} (added on this page)`],
    ]);
    // The page's first simulator that can fork.
    expect(sims.defaultSim).toBe(ENDPOINT);
    expect(sims.browserLeftOut).toBe(BUNDLED_BROWSER_SIM.spec);
  });

  it('falls back to retrieval when the page runs nothing that can fork', () => {
    expect(forkSims(SERVER, ['replay'])).toEqual({
      options: SERVER.slice(1),
      defaultSim: 'retrieval',
      browserLeftOut: null,
    });
  });
});
