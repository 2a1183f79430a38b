import { loader } from '@monaco-editor/react';
import * as monaco from 'monaco-editor';
// Vite's `?worker` suffix turns a module into a default-exported Worker constructor, which the
// linter cannot see through.
// oxlint-disable-next-line import/default
import EditorWorker from 'monaco-editor/editor/editor.worker?worker';
// oxlint-disable-next-line import/default
import JsonWorker from 'monaco-editor/languages/features/json/json.worker?worker';
// oxlint-disable-next-line import/default
import TsWorker from 'monaco-editor/languages/features/typescript/ts.worker?worker';

/**
 * Monaco from the bundle, never from a CDN (the default of @monaco-editor/react), with its
 * workers built by Vite. Imported only by the rule-set page's lazy chunk.
 */
let configured = false;

export function setUpMonaco(): typeof monaco {
  if (configured) return monaco;
  configured = true;
  self.MonacoEnvironment = {
    getWorker(_workerId: string, label: string) {
      if (label === 'json') return new JsonWorker();
      if (label === 'typescript' || label === 'javascript') return new TsWorker();
      return new EditorWorker();
    },
  };
  loader.config({ monaco });
  return monaco;
}

export { monaco };
