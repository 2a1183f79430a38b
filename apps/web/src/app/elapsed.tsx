import { useEffect, useState } from 'react';

/** Seconds since `startedAt`, ticking, so a long run visibly makes progress. */
export function Elapsed({ startedAt }: { startedAt: number }) {
  const [now, setNow] = useState(startedAt);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, []);
  return <>{Math.max(0, (now - startedAt) / 1000).toFixed(0)} s</>;
}
