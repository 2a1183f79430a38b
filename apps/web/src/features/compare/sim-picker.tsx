import { SimSpec } from '@terrarium/schema';
import { useState } from 'react';

export interface SimulatorOption {
  spec: string;
  label: string;
  description: string;
}

/**
 * Checkboxes for the simulators the server offers, plus any spec typed in (e.g. an
 * `openai:URL#MODEL` endpoint); the chosen set lives in the URL so a link reopens it.
 */
export function SimPicker({
  available,
  selected,
  onChange,
}: {
  available: readonly SimulatorOption[];
  selected: readonly string[];
  onChange(sims: string[]): void;
}) {
  const [custom, setCustom] = useState('');
  const customCheck = custom.trim() === '' ? null : SimSpec.safeParse(custom.trim());
  const offered = new Set(available.map((option) => option.spec));
  const extra = selected.filter((sim) => !offered.has(sim));
  const toggle = (spec: string, checked: boolean) =>
    onChange(checked ? [...selected, spec] : selected.filter((sim) => sim !== spec));

  return (
    <fieldset className="sim-picker">
      <legend>Simulators</legend>
      {[
        ...available,
        ...extra.map((spec) => ({ spec, label: spec, description: 'custom spec' })),
      ].map((option) => (
        <label key={option.spec} className="sim-option" title={option.description}>
          <input
            type="checkbox"
            checked={selected.includes(option.spec)}
            onChange={(event) => toggle(option.spec, event.target.checked)}
          />{' '}
          {option.label} <span className="muted mono">{option.spec}</span>
        </label>
      ))}
      <form
        className="sim-custom"
        onSubmit={(event) => {
          event.preventDefault();
          if (!customCheck?.success || selected.includes(customCheck.data)) return;
          onChange([...selected, customCheck.data]);
          setCustom('');
        }}
      >
        <input
          type="text"
          aria-label="Simulator spec"
          placeholder="openai:http://127.0.0.1:8000/v1#model"
          value={custom}
          onChange={(event) => setCustom(event.target.value)}
          className="mono"
        />
        <button type="submit" disabled={!customCheck?.success}>
          Add
        </button>
        {customCheck !== null && !customCheck.success && (
          <span className="muted">expected replay, retrieval, onnx:PATH or openai:URL#MODEL</span>
        )}
      </form>
    </fieldset>
  );
}
