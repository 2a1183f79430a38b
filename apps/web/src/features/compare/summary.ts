import { CONTENT_METRIC, metricDefinition, RULE_METRICS } from '@terrarium/fidelity';
import type { SimulatedStep, SimulationResult } from '@terrarium/schema';

export { CONTENT_METRIC };

// Labels and definitions come from the one table in packages/fidelity (metric-definitions.ts).
export function metricLabel(id: string): string {
  return metricDefinition('rule', id)?.label ?? id;
}

export function metricDescription(id: string): string | undefined {
  return metricDefinition('rule', id)?.definition;
}

function metricRank(id: string): number {
  if (id === CONTENT_METRIC) return -1;
  const index = RULE_METRICS.findIndex((metric) => metric.id === id);
  return index === -1 ? RULE_METRICS.length : index;
}

/** Content first, then the rule metrics in their canonical order, then anything else by name. */
export function orderMetrics(ids: Iterable<string>): string[] {
  return [...new Set(ids)].toSorted((a, b) => metricRank(a) - metricRank(b) || a.localeCompare(b));
}

export interface SimulationSummary {
  sim: string;
  /** Steps asked for; `simulated` of them got a prediction, `errors` failed (never scored). */
  steps: number;
  simulated: number;
  errors: number;
  /** Metric id → mean over the steps where it applied (null scores are left out), or null. */
  meanScores: Record<string, number | null>;
  /** Share of cache hits among steps that report a cache outcome; null when none does. */
  hitRate: number | null;
  meanLatencyMs: number | null;
  inputTokens: number;
  outputTokens: number;
}

function mean(values: number[]): number | null {
  if (values.length === 0) return null;
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** A step whose prediction failed (endpoint down, timeout…): it has no prediction to score. */
export function predictionFailed(step: Pick<SimulatedStep, 'error'>): boolean {
  return step.error !== null;
}

/**
 * Means over the steps that were simulated: a failed prediction is never scored, counted as
 * simulated or averaged in (its placeholder observation would score as if the model had answered).
 */
export function summarizeSimulation(result: SimulationResult): SimulationSummary {
  const scores = new Map<string, number[]>();
  const cacheOutcomes: boolean[] = [];
  const simulated = result.steps.filter((step) => !predictionFailed(step));
  for (const step of simulated) {
    for (const [id, value] of Object.entries(step.scores)) {
      const values = scores.get(id) ?? [];
      if (value !== null) values.push(value);
      scores.set(id, values);
    }
    if (step.provenance.cache !== null) cacheOutcomes.push(step.provenance.cache === 'hit');
  }
  const meanScores: Record<string, number | null> = {};
  for (const id of orderMetrics(scores.keys())) meanScores[id] = mean(scores.get(id) ?? []);
  return {
    sim: result.sim,
    steps: result.steps.length,
    simulated: simulated.length,
    errors: result.steps.length - simulated.length,
    meanScores,
    hitRate: mean(cacheOutcomes.map((hit) => (hit ? 1 : 0))),
    meanLatencyMs: mean(simulated.map((step) => step.latencyMs)),
    inputTokens: result.steps.reduce((sum, step) => sum + step.usage.inputTokens, 0),
    outputTokens: result.steps.reduce((sum, step) => sum + step.usage.outputTokens, 0),
  };
}

/** One transition, with what every simulator that covered it predicted. */
export interface ComparedStep {
  step: number;
  /** The first simulator's record carries the action and the real observation for all. */
  base: SimulatedStep;
  bySim: Map<string, SimulatedStep>;
}

/** Aligns the simulators' results by `step` (the transition's step index), in step order. */
export function alignSteps(results: readonly SimulationResult[]): ComparedStep[] {
  const rows = new Map<number, ComparedStep>();
  for (const result of results) {
    for (const simulated of result.steps) {
      const row = rows.get(simulated.step);
      if (row) row.bySim.set(result.sim, simulated);
      else {
        rows.set(simulated.step, {
          step: simulated.step,
          base: simulated,
          bySim: new Map([[result.sim, simulated]]),
        });
      }
    }
  }
  return [...rows.values()].toSorted((a, b) => a.step - b.step);
}

export interface WorstStep {
  step: number;
  sim: string;
  content: number;
}

/** Content scores below 1 over all simulators and steps, lowest first; ties by step. */
/** How many (step, simulator) predictions have a content score: none means nothing to rank. */
export function scoredPredictions(rows: readonly ComparedStep[]): number {
  let scored = 0;
  for (const row of rows) {
    for (const simulated of row.bySim.values()) {
      if (!predictionFailed(simulated) && typeof simulated.scores[CONTENT_METRIC] === 'number') {
        scored++;
      }
    }
  }
  return scored;
}

export function worstSteps(rows: readonly ComparedStep[], limit: number): WorstStep[] {
  const candidates: WorstStep[] = [];
  for (const row of rows) {
    for (const [sim, simulated] of row.bySim) {
      if (predictionFailed(simulated)) continue;
      const content = simulated.scores[CONTENT_METRIC];
      if (typeof content === 'number' && content < 1) {
        candidates.push({ step: row.step, sim, content });
      }
    }
  }
  return candidates.toSorted((a, b) => a.content - b.content || a.step - b.step).slice(0, limit);
}
