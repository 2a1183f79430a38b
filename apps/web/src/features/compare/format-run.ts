import type { Action } from '@terrarium/schema';

export function formatPercent(value: number | null): string {
  return value === null ? '—' : `${Math.round(value * 100)}%`;
}

export function formatLatency(ms: number | null): string {
  if (ms === null) return '—';
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}

/** A one-line name for an action, for tables and lists. */
export function actionLabel(action: Action): string {
  switch (action.type) {
    case 'tool_call':
    case 'browser':
      return action.name;
    case 'command':
      return action.command.split('\n')[0] ?? '';
    case 'keystrokes':
      return action.keys;
    case 'message':
      return action.text.split('\n')[0] ?? '';
  }
}
