import type { SqlWorld, TerminalWorld, World } from '@terrarium/executable-worlds';

export function isTerminalWorld(world: World): world is TerminalWorld {
  return world.kind === 'terminal';
}

export function isSqlWorld(world: World): world is SqlWorld {
  return world.kind === 'sql';
}
