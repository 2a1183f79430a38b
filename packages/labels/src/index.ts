export {
  criteriaForLabelers,
  criteriaLeftUnscored,
  DEFAULT_CRITERIA,
  LabelCriterion,
  labelScaleProblem,
  MAX_SCALE_POINTS,
  normalizeScore,
  rejudgedCriteria,
  type RuleSetCriterionLike,
} from './criteria';
export { QueueSelection, seededRandom, selectQueueItems } from './select-items';
export { ruleJudgeGaps } from './rule-judge-gap';
export { otherDomainNote } from './domain-note';
export {
  LabelLine,
  labelsToJsonl,
  parseLabelsJsonl,
  type ExportableAdjudication,
  type ExportableLabel,
  type ItemProvenance,
  type LabelLineError,
  type ParsedAdjudication,
  type ParsedLabel,
} from './labels-jsonl';
export * from './agreement';
