import { describeCurriculumStoreSuite } from './test-support/curriculum-suite';
import { pgliteMemoryHarness } from './test-support/harnesses';

describeCurriculumStoreSuite(pgliteMemoryHarness);
