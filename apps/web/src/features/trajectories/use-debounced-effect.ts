import { useEffect, useEffectEvent } from 'react';

/** Runs `effect(value)` once `value` has stopped changing for `delayMs`. */
export function useDebouncedEffect<T>(value: T, delayMs: number, effect: (value: T) => void) {
  const runEffect = useEffectEvent(effect);
  useEffect(() => {
    const timer = window.setTimeout(() => runEffect(value), delayMs);
    return () => window.clearTimeout(timer);
  }, [value, delayMs]);
}
