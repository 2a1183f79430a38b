/**
 * The suffix models/evaluate.ts gives a group of held-out transitions that leaves out the airline
 * tasks about a customer the training side has a task of (tau2-bench's airline tasks are
 * tau-bench's under other ids, on one database of customers); the Models page explains such rows.
 */
export const UNSEEN_CUSTOMERS = ' (unseen customers only)';
