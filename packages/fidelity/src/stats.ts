/** Ranks with ties given their average rank (1-based). */
export function averageRanks(values: readonly number[]): number[] {
  const order = values
    .map((value, index) => ({ value, index }))
    .toSorted((x, y) => x.value - y.value);
  const ranks = Array.from({ length: values.length }, () => 0);
  let i = 0;
  while (i < order.length) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]?.value === order[i]?.value) j++;
    const rank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) ranks[order[k]?.index ?? 0] = rank;
    i = j + 1;
  }
  return ranks;
}

/** Spearman's rank correlation (Pearson on average ranks); NaN when either side is constant. */
export function spearman(xs: readonly number[], ys: readonly number[]): number {
  if (xs.length !== ys.length)
    throw new Error(`spearman: ${xs.length} x values, ${ys.length} y values`);
  return pearson(averageRanks(xs), averageRanks(ys));
}

export function pearson(xs: readonly number[], ys: readonly number[]): number {
  const n = xs.length;
  let meanX = 0;
  let meanY = 0;
  for (let i = 0; i < n; i++) {
    meanX += xs[i] ?? 0;
    meanY += ys[i] ?? 0;
  }
  meanX /= n;
  meanY /= n;
  let covariance = 0;
  let varianceX = 0;
  let varianceY = 0;
  for (let i = 0; i < n; i++) {
    const dx = (xs[i] ?? 0) - meanX;
    const dy = (ys[i] ?? 0) - meanY;
    covariance += dx * dy;
    varianceX += dx * dx;
    varianceY += dy * dy;
  }
  return covariance / Math.sqrt(varianceX * varianceY);
}
