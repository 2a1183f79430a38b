import { isPlainObject } from '../observations/json-value';

export type JsonChangeType = 'added' | 'removed' | 'changed';

/** One difference between the real and the predicted JSON value, at a path like `$.order.items[0]`. */
export interface JsonChange {
  path: string;
  type: JsonChangeType;
  /** The real value (absent for `added`). */
  real?: unknown;
  /** The predicted value (absent for `removed`). */
  predicted?: unknown;
}

/** A diff longer than this is cut; the view says how many changes were left out. */
export const MAX_JSON_CHANGES = 500;

function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function walk(real: unknown, predicted: unknown, path: string, changes: JsonChange[]): void {
  if (changes.length >= MAX_JSON_CHANGES) return;
  if (Array.isArray(real) && Array.isArray(predicted)) {
    const realItems: readonly unknown[] = real;
    const predictedItems: readonly unknown[] = predicted;
    const length = Math.max(realItems.length, predictedItems.length);
    for (let index = 0; index < length; index++) {
      const here = childPath(path, index);
      if (index >= predictedItems.length) {
        changes.push({ path: here, type: 'removed', real: realItems[index] });
      } else if (index >= realItems.length) {
        changes.push({ path: here, type: 'added', predicted: predictedItems[index] });
      } else walk(realItems[index], predictedItems[index], here, changes);
    }
    return;
  }
  if (isPlainObject(real) && isPlainObject(predicted)) {
    for (const [key, value] of Object.entries(real)) {
      const here = childPath(path, key);
      if (Object.hasOwn(predicted, key)) walk(value, predicted[key], here, changes);
      else changes.push({ path: here, type: 'removed', real: value });
    }
    for (const [key, value] of Object.entries(predicted)) {
      if (!Object.hasOwn(real, key)) {
        changes.push({ path: childPath(path, key), type: 'added', predicted: value });
      }
    }
    return;
  }
  if (!Object.is(real, predicted)) changes.push({ path, type: 'changed', real, predicted });
}

/**
 * The structural differences between two JSON values: keys only in the real value are `removed`,
 * keys only in the prediction `added`, and leaves (or values of different types) that differ
 * `changed`. Array items are compared by position.
 */
export function diffJson(real: unknown, predicted: unknown): JsonChange[] {
  const changes: JsonChange[] = [];
  walk(real, predicted, '$', changes);
  return changes;
}
