export * from './trajectory';
export * from './import-report';
export * from './views';
export * from './simulation';
export * from './bench';
export * from './bench-views';
export * from './rule-set-scores';
export * from './accounts';
