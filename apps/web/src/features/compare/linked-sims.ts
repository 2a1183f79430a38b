/**
 * Which simulators a Compare link may run as the page opens. A link is anyone's to write: one
 * naming `openai:http://…#model` would otherwise make a signed-in browser send the trajectory to
 * that endpoint just by being followed. So only the simulators this server offers (built in, or
 * configured by its user) and those of the bench run the link came from run at once; the others
 * wait for the user's Run, with a note naming where they would send the trajectory.
 */
export function linkedSimsToRun(
  linked: readonly string[],
  trusted: ReadonlySet<string>,
): { run: string[]; held: string[] } {
  return {
    run: linked.filter((sim) => trusted.has(sim)),
    held: linked.filter((sim) => !trusted.has(sim)),
  };
}
