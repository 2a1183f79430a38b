import { pgliteMemoryHarness } from './test-support/harnesses';
import { describeStoreSuite } from './test-support/store-suite';

describeStoreSuite(pgliteMemoryHarness);
