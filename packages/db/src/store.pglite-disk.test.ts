import { pgliteDiskHarness } from './test-support/harnesses';
import { describePersistentStoreSuite, describeStoreSuite } from './test-support/store-suite';

describeStoreSuite(pgliteDiskHarness);
describePersistentStoreSuite(pgliteDiskHarness);
