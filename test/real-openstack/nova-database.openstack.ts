/**
 * The Nova database provisioning's plain-SQL adapter against the sandbox's MariaDB, in the real-cloud suite: the
 * cases of test/nova/database-sql.test.ts, run here with `whenUnreachable: 'fail'`. `npm test` skips them when
 * the server does not answer (it runs before the sandbox is up); this suite runs with the sandbox up, so an
 * unreachable MariaDB is a failure, not a skip. Scratch schemas and users only (`regent_t_<random>…`), dropped
 * after each case; the sandbox's own nova, nova_api, nova_cell0 and its users are never touched.
 */
import { sqlAdapterCases } from '../nova/database-sql.test.js';

describe('nova database provisioning (plain SQL) against the sandbox MariaDB', function () {
  sqlAdapterCases({ whenUnreachable: 'fail' });
});
