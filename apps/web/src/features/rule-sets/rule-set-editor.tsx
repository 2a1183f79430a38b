import { Editor, type OnMount } from '@monaco-editor/react';
import { useEffect, useRef } from 'react';
import { documentLanguage, schemaHints } from './schema-hints';
import { setUpMonaco, monaco } from './monaco-setup';

setUpMonaco();

const SCHEMA_URI = 'https://terrarium.local/schemas/rule-set.schema.json';
const MODEL_URI = 'inmemory://terrarium/rule-set.json';

export interface EditorIssue {
  line: number;
  column: number;
  field: string;
  message: string;
}

let yamlProvidersFor: unknown = null;

/**
 * Completion and hover for YAML from the schema's property descriptions (Monaco validates and
 * completes JSON from the schema itself; YAML has no language service in the bundle).
 */
function registerYamlHints(schema: unknown): void {
  if (yamlProvidersFor === schema) return;
  yamlProvidersFor = schema;
  const hints = schemaHints(schema);
  const byName = new Map(hints.map((hint) => [hint.name, hint]));
  monaco.languages.registerCompletionItemProvider('yaml', {
    provideCompletionItems(model, position) {
      const word = model.getWordUntilPosition(position);
      const range = {
        startLineNumber: position.lineNumber,
        endLineNumber: position.lineNumber,
        startColumn: word.startColumn,
        endColumn: word.endColumn,
      };
      const line = model.getLineContent(position.lineNumber).slice(0, position.column - 1);
      const key = /^\s*-?\s*([A-Za-z$_][\w$]*)\s*:\s*\S*$/.exec(line)?.[1];
      const values = key === undefined ? [] : (byName.get(key)?.values ?? []);
      if (values.length > 0) {
        return {
          suggestions: values.map((value) => ({
            label: value,
            kind: monaco.languages.CompletionItemKind.EnumMember,
            insertText: value,
            range,
          })),
        };
      }
      return {
        suggestions: hints.map((hint) => ({
          label: hint.name,
          kind: monaco.languages.CompletionItemKind.Property,
          insertText: `${hint.name}: `,
          documentation: hint.description,
          range,
        })),
      };
    },
  });
  monaco.languages.registerHoverProvider('yaml', {
    provideHover(model, position) {
      const word = model.getWordAtPosition(position);
      const hint = word ? byName.get(word.word) : undefined;
      if (!word || !hint || hint.description === '') return null;
      return {
        range: new monaco.Range(
          position.lineNumber,
          word.startColumn,
          position.lineNumber,
          word.endColumn,
        ),
        contents: [{ value: `**${hint.name}**` }, { value: hint.description }],
      };
    },
  });
}

/**
 * The rule-set document in Monaco: JSON gets the schema's completion, hover and validation from
 * Monaco's JSON service; both languages get the server's parse issues as inline markers.
 */
export function RuleSetEditor({
  value,
  onChange,
  schema,
  issues,
}: {
  value: string;
  onChange: (value: string) => void;
  schema: unknown;
  issues: readonly EditorIssue[];
}) {
  const language = documentLanguage(value);
  const editorRef = useRef<Parameters<OnMount>[0] | null>(null);

  useEffect(() => {
    if (schema === null) return;
    monaco.json.jsonDefaults.setDiagnosticsOptions({
      validate: true,
      enableSchemaRequest: false,
      schemas: [{ uri: SCHEMA_URI, fileMatch: [MODEL_URI], schema }],
    });
    registerYamlHints(schema);
  }, [schema]);

  useEffect(() => {
    const model = editorRef.current?.getModel();
    if (!model) return;
    monaco.editor.setModelMarkers(
      model,
      'terrarium',
      issues.map((issue) => ({
        severity: monaco.MarkerSeverity.Error,
        startLineNumber: Math.max(1, issue.line),
        startColumn: Math.max(1, issue.column),
        endLineNumber: Math.max(1, issue.line),
        endColumn: model.getLineMaxColumn(Math.max(1, Math.min(issue.line, model.getLineCount()))),
        message: issue.field ? `${issue.field}: ${issue.message}` : issue.message,
      })),
    );
  }, [issues]);

  return (
    <div className="rule-set-editor" data-testid="rule-set-editor" data-language={language}>
      <Editor
        height="60vh"
        language={language}
        path={language === 'json' ? MODEL_URI : 'inmemory://terrarium/rule-set.yaml'}
        value={value}
        onChange={(next) => onChange(next ?? '')}
        onMount={(editor) => {
          editorRef.current = editor;
        }}
        options={{ minimap: { enabled: false }, fontSize: 13, scrollBeyondLastLine: false }}
      />
    </div>
  );
}
