export { buildProgram } from './program';
export { mergeReports, toJsonOutput } from './commands/import-command';
