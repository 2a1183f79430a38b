import { openMemoryStore } from '@terrarium/db/test-store';
import { describeSqlRunPages } from './run-leaderboard.testkit';

describeSqlRunPages('PGlite in memory', () => openMemoryStore());
