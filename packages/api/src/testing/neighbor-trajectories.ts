function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The trajectories a retrieval answer names in `provenance.detail.neighbors` (none on a miss). */
export function neighborTrajectories(detail: unknown): string[] {
  if (!isRecord(detail) || !Array.isArray(detail['neighbors'])) return [];
  return detail['neighbors'].flatMap((neighbor: unknown) =>
    isRecord(neighbor) && typeof neighbor['trajectory'] === 'string'
      ? [neighbor['trajectory']]
      : [],
  );
}
