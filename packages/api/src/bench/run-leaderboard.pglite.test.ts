import { openStore } from '@terrarium/db';
import { describeSqlRunPages } from './run-leaderboard.testkit';

describeSqlRunPages('PGlite in memory', () => openStore({ memory: true }));
