import { describeBenchPagesSuite } from './test-support/bench-pages-suite';
import { pgliteMemoryHarness } from './test-support/harnesses';
import { describeBenchStoreSuite } from './test-support/bench-suite';

describeBenchStoreSuite(pgliteMemoryHarness);
describeBenchPagesSuite(pgliteMemoryHarness);
