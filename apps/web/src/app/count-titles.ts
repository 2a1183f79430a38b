/**
 * One-line definitions of the counts the pages show, on hover of their column heads: "steps" and
 * "transitions" differ, and a user comparing a dataset's two numbers should not have to guess how.
 */
export const STEPS_TITLE =
  'Every recorded step: the agent’s actions and messages and the user’s messages, each with the environment’s answer where there is one';

export const TRANSITIONS_TITLE =
  'Steps whose action the environment answered (a tool call, a command, a page action, with its observation): what a world model predicts and a bench scores';
