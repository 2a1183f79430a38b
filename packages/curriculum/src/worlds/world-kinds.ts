import type { SqlWorld, TerminalWorld, ToolWorld, World } from '@terrarium/executable-worlds';

export function isTerminalWorld(world: World): world is TerminalWorld {
  return world.kind === 'terminal';
}

export function isSqlWorld(world: World): world is SqlWorld {
  return world.kind === 'sql';
}

export function isToolWorld(world: World): world is ToolWorld {
  return world.kind === 'tool';
}
