import type { ExecutionProviderChoice, ModelVariant } from '@terrarium/inference/web';
import { useState } from 'react';
import type { ModelSource } from './browser-model';
import { pickModelFiles } from './pick-model-files';

const FROM_DISK = '\u0000disk';

/**
 * Which model the browser runs (a folder the server serves, or one picked from disk) and on
 * which execution provider.
 */
export function ModelSourcePicker({
  served,
  onSource,
  executionProvider,
  onExecutionProvider,
  variant,
  onVariant,
}: {
  served: readonly string[];
  onSource(source: ModelSource | null): void;
  executionProvider: ExecutionProviderChoice;
  onExecutionProvider(choice: ExecutionProviderChoice): void;
  variant: ModelVariant;
  onVariant(variant: ModelVariant): void;
}) {
  const [choice, setChoice] = useState(served[0] ?? FROM_DISK);
  const [problem, setProblem] = useState<string | null>(null);
  const [picked, setPicked] = useState<string | null>(null);

  const takeFiles = (files: FileList | null) => {
    const result = pickModelFiles(files ?? []);
    if (!result.ok) {
      setProblem(result.reason);
      setPicked(null);
      onSource(null);
      return;
    }
    const { config, model } = result.files;
    const folder = config.webkitRelativePath.split('/')[0] ?? '';
    const label = folder === '' ? model.name : folder;
    setProblem(null);
    setPicked(`${label}: ${config.name}, ${model.webkitRelativePath || model.name}`);
    onSource({ kind: 'files', label, files: result.files });
  };

  return (
    <>
      <label>
        Model{' '}
        <select
          data-testid="browser-model-choice"
          value={choice}
          onChange={(event) => {
            setChoice(event.target.value);
            setProblem(null);
            setPicked(null);
            onSource(
              event.target.value === FROM_DISK
                ? null
                : { kind: 'served', name: event.target.value },
            );
          }}
        >
          {served.map((name) => (
            <option key={name} value={name}>
              {name} (served)
            </option>
          ))}
          <option value={FROM_DISK}>a folder from disk…</option>
        </select>
      </label>
      {choice === FROM_DISK && (
        <>
          <label title="a folder holding config.json, tokenizer.json and onnx/model.onnx">
            Folder{' '}
            <input
              type="file"
              data-testid="model-folder-input"
              multiple
              // React has no prop for it; the attribute makes the picker choose a whole folder.
              ref={(input) => input?.setAttribute('webkitdirectory', '')}
              onChange={(event) => takeFiles(event.target.files)}
            />
          </label>
          <label title="config.json, tokenizer.json and the .onnx file, chosen together">
            or files{' '}
            <input
              type="file"
              data-testid="model-files-input"
              multiple
              accept=".json,.onnx"
              onChange={(event) => takeFiles(event.target.files)}
            />
          </label>
        </>
      )}
      <label>
        Runs on{' '}
        <select
          data-testid="execution-provider-choice"
          value={executionProvider}
          onChange={(event) => {
            const value = event.target.value;
            if (value === 'auto' || value === 'wasm' || value === 'webgpu')
              onExecutionProvider(value);
          }}
        >
          <option value="auto">WebGPU if available, else wasm</option>
          <option value="webgpu">WebGPU</option>
          <option value="wasm">wasm (CPU)</option>
        </select>
      </label>
      {choice !== FROM_DISK && (
        <label title="int8: onnx/model_quantized.onnx (smaller and faster in the browser); fp32 when the folder has no int8 file">
          Weights{' '}
          <select
            data-testid="model-variant-choice"
            value={variant}
            onChange={(event) => {
              const value = event.target.value;
              if (value === 'int8' || value === 'fp32') onVariant(value);
            }}
          >
            <option value="int8">int8 (quantized)</option>
            <option value="fp32">fp32</option>
          </select>
        </label>
      )}
      {picked !== null && <span className="muted mono">{picked}</span>}
      {problem !== null && (
        <p className="status status-error" role="alert">
          {problem}
        </p>
      )}
    </>
  );
}
