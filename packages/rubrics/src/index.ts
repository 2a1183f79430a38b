export {
  RuleSet,
  Rule,
  MetricRule,
  ContentRule,
  PatternRule,
  CustomRule,
  Criterion,
  CriterionCategory,
  CRITERION_CATEGORIES,
  CATEGORY_WEIGHTS,
  Combine,
  Scale,
  RuleScope,
  type RuleSetInput,
} from './rule-set';
export {
  parseRuleSet,
  locateRuleSetField,
  validateRuleSet,
  formatRuleSetIssues,
  type RuleSetIssue,
  type RuleSetParse,
} from './parse-rule-set';
export {
  compileRuleSet,
  normalizePoints,
  toolOfAction,
  DEFAULT_CONTRADICTION_FACTOR,
  MAX_PREVIEW_ITEMS,
  type CompiledRuleSet,
  type RewardItem,
  type BreakdownEntry,
  type ItemReward,
  type CustomRuleInput,
  type CustomRuleResult,
  type CriterionPoints,
  type EvaluateOptions,
} from './evaluate';
export {
  defaultRuleSet,
  defaultRuleSetInput,
  defaultRuleSetByName,
  DEFAULT_RULE_SET_NAMES,
} from './default-rule-sets';
export { ruleSetJsonSchema, RULE_SET_SCHEMA_ID } from './json-schema';
export { criteriaJudgePrompt, parseCriteriaAnswer, type JudgeMessage } from './criteria-judge';
export { diffLines, diffRuleSets, type LineChange, type EntryChange } from './diff-rule-sets';
export { diffableDocument, ruleSetYaml } from './rule-set-document';
export { rewardItemOf } from './reward-item';
