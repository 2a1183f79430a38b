import { describeLabelStoreSuite } from './test-support/label-suite';
import { pgliteMemoryHarness } from './test-support/harnesses';

describeLabelStoreSuite(pgliteMemoryHarness);
