import { describeEnvCatalogSuite } from './test-support/env-catalog-suite';
import { pgliteDiskHarness, pgliteMemoryHarness } from './test-support/harnesses';

describeEnvCatalogSuite(pgliteMemoryHarness);
describeEnvCatalogSuite(pgliteDiskHarness);
