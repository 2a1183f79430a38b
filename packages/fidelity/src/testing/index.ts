/// <reference types="node" />
// The package's `testing` export: real-data loaders and the perturbation study, for tests and bench/.
export { REAL_DATASETS, datasetAvailable, loadItems } from './real-items';
export { studyPerturbations, type PerturbationStudy } from './perturbation-study';
