export {
  alphaUndefinedReason,
  krippendorffAlpha,
  MEASUREMENT_LEVELS,
  type MeasurementLevel,
  type RatingValue,
} from './krippendorff';
export {
  cohenKappa,
  confusionMatrix,
  kappaUndefinedReason,
  orderedCategories,
  type ConfusionMatrix,
  type KappaWeighting,
} from './cohen-kappa';
export {
  AGREEMENT_BOOTSTRAP,
  bootstrapInterval,
  bootstrapIntervals,
  type BootstrapOptions,
  type Interval,
} from './bootstrap';
export {
  agreementReport,
  comparePaired,
  parseRatingsJsonl,
  RatingRecord,
  type AgreementReport,
  type AgreementSummary,
  type AlphaByLevel,
  type PairedComparison,
  type RatingLineError,
  type TwoRaterAgreement,
} from './agreement-report';
