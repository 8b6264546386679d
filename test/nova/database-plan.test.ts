/**
 * The Database step's plan (nova-operator.md, "Database"; src/nova/database/plan.ts): the two blocks and their
 * names, the order of the steps, one user for both cell schemas, the schema and user name checks before
 * anything is applied, and max_user_connections sized for the CR's own topology.
 */
import { expect } from 'chai';
import type { NovaSpec } from '../../src/resources/nova.js';
import type { BlockPlan, ProvisionStep } from '../../src/nova/database/port.js';
import {
  CONNECTIONS_PER_POOL,
  MARIADB_OPERATOR_DEFAULT_MAX_USER_CONNECTIONS,
  OSLO_DB_MAX_OVERFLOW,
  OSLO_DB_MAX_POOL_SIZE,
  SCHEMAS_OPENED,
  maxUserConnections,
  planDatabases,
  podsPerRole,
  type DatabasePlan,
} from '../../src/nova/database/plan.js';

const spec = (over: Partial<NovaSpec> = {}): NovaSpec => ({
  image: 'registry.example/nova:2025.2',
  openStackRelease: '2025.2',
  database: {
    api: { clusterRef: { name: 'galera' }, database: 'nova_api', secretRef: { name: 'nova-api-db' } },
    cell: { clusterRef: { name: 'galera' }, database: 'nova', secretRef: { name: 'nova-cell-db' } },
  },
  messaging: { clusterRef: { name: 'rabbit' } },
  serviceUser: { secretRef: { name: 'nova-service-user' } },
  ...over,
});
const credentials = { api: { username: 'nova_api' }, cell: { username: 'nova' } };
const nova = (over: Partial<NovaSpec> = {}, name = 'nova') => ({ metadata: { name }, spec: spec(over) });
const withDatabases = (api: string, cell: string): Partial<NovaSpec> => {
  const base = spec().database;
  return { database: { api: { ...base.api, database: api }, cell: { ...base.cell, database: cell } } };
};

const blocks = (plan: DatabasePlan): readonly [BlockPlan, BlockPlan] => {
  if (!plan.ok) throw new Error(`expected a plan, got problems: ${plan.problems.join('; ')}`);
  return plan.blocks;
};
const problems = (plan: DatabasePlan): string[] => {
  if (plan.ok) throw new Error('expected problems, got a plan');
  return plan.problems;
};
const shape = (step: ProvisionStep): string => `${step.kind} ${step.name} ${step.kind === 'User' ? step.username : step.database}${step.kind === 'Grant' ? ` to ${step.username}` : ''}`;

describe('nova database plan (nova-operator.md, "Database")', () => {
  describe('blocks, names and order', () => {
    it('nova_api is planned under {name}-api: Database, User (secretRef key password), Grant, all named {name}-api', () => {
      const [api] = blocks(planDatabases(nova(), credentials));
      expect(api.instance).to.equal('nova-api');
      expect(api.nova).to.equal('nova');
      expect(api.clusterRef).to.equal('galera');
      expect(api.steps.map(shape)).to.deep.equal(['Database nova-api nova_api', 'User nova-api nova_api', 'Grant nova-api nova_api to nova_api']);
      const user = api.steps[1];
      expect(user?.kind === 'User' && user.passwordSecret).to.deep.equal({ name: 'nova-api-db', key: 'password' });
    });

    it('the cell block is planned under the bare {name}, with cell0 ({database}_cell0) as its additional schema in the order primary Database, additional Database, User with primary Grant, additional Grant', () => {
      const [, cell] = blocks(planDatabases(nova(), credentials));
      expect(cell.instance).to.equal('nova');
      expect(cell.steps.map(shape)).to.deep.equal([
        'Database nova nova',
        'Database nova-cell0 nova_cell0',
        'User nova nova',
        'Grant nova nova to nova',
        'Grant nova-cell0 nova_cell0 to nova',
      ]);
    });

    it('a grant is never planned before its schema and its user exist', () => {
      for (const block of blocks(planDatabases(nova(), credentials))) {
        block.steps.forEach((step, index) => {
          if (step.kind !== 'Grant') return;
          const before = block.steps.slice(0, index);
          expect(before.some((s) => s.kind === 'Database' && s.database === step.database), `${shape(step)} after its Database`).to.equal(true);
          expect(before.some((s) => s.kind === 'User' && s.username === step.username), `${shape(step)} after its User`).to.equal(true);
        });
      }
    });

    it('one user for both cell schemas: a single User step, and both grants name it', () => {
      const [, cell] = blocks(planDatabases(nova(), { ...credentials, cell: { username: 'nova_cell' } }));
      expect(cell.steps.filter((s) => s.kind === 'User')).to.have.length(1);
      expect(cell.steps.filter((s) => s.kind === 'Grant').map((s) => s.kind === 'Grant' && s.username)).to.deep.equal(['nova_cell', 'nova_cell']);
    });

    it('cell0 follows the cell schema, whatever it is called', () => {
      const [, cell] = blocks(planDatabases(nova(withDatabases('napi', 'Cell_1'), 'prod'), credentials));
      expect(cell.steps.filter((s) => s.kind === 'Database').map((s) => s.kind === 'Database' && [s.name, s.database])).to.deep.equal([['prod', 'Cell_1'], ['prod-cell0', 'Cell_1_cell0']]);
    });

    it('each block names its own cluster', () => {
      const base = spec().database;
      const [api, cell] = blocks(planDatabases(nova({ database: { api: { ...base.api, clusterRef: { name: 'api-db' } }, cell: { ...base.cell, clusterRef: { name: 'cell-db' } } } }), credentials));
      expect([api.clusterRef, cell.clusterRef]).to.deep.equal(['api-db', 'cell-db']);
    });
  });

  describe('names checked before anything is applied (no plan at all on any problem)', () => {
    it('a 64-character cell schema is refused when its cell0 name would be 70 characters', () => {
      const found = problems(planDatabases(nova(withDatabases('nova_api', 'c'.repeat(64))), credentials));
      expect(found).to.have.length(1);
      expect(found[0]).to.contain('cell0').and.contain(`${'c'.repeat(64)}_cell0`);
    });

    it('a 60-character cell schema makes a 66-character cell0 name: refused; 58 characters (cell0 of 64) is planned', () => {
      expect(problems(planDatabases(nova(withDatabases('nova_api', 'c'.repeat(60))), credentials))[0]).to.contain('_cell0');
      const [, cell] = blocks(planDatabases(nova(withDatabases('nova_api', 'c'.repeat(58))), credentials));
      expect(cell.steps[1]).to.deep.include({ kind: 'Database', database: `${'c'.repeat(58)}_cell0` });
    });

    const badSchemas = ['', 'nova-api', "nova'x", 'nova api', 'nova`x', 'növa', 'a'.repeat(65)];
    for (const bad of badSchemas) {
      it(`the api schema ${JSON.stringify(bad.length > 20 ? `${bad.slice(0, 8)}…(${bad.length})` : bad)} is refused, naming the field`, () => {
        const found = problems(planDatabases(nova(withDatabases(bad, 'nova')), credentials));
        expect(found.join('\n')).to.contain('spec.database.api.database');
      });
      it(`the cell schema ${JSON.stringify(bad.length > 20 ? `${bad.slice(0, 8)}…(${bad.length})` : bad)} is refused once (not again as its cell0 name)`, () => {
        const found = problems(planDatabases(nova(withDatabases('nova_api', bad)), credentials));
        expect(found).to.have.length(1);
        expect(found[0]).to.contain('spec.database.cell.database');
      });
    }

    const badUsers = ['', 'nova-api', "nova'", 'nova@x', 'nova:x', 'nova/x', 'nova%', 'u'.repeat(81)];
    for (const bad of badUsers) {
      it(`the user name ${JSON.stringify(bad.length > 20 ? `${bad.slice(0, 8)}…(${bad.length})` : bad)} is refused for either block (it goes into SQL and the DSN unescaped)`, () => {
        expect(problems(planDatabases(nova(), { ...credentials, api: { username: bad } })).join('\n')).to.contain('spec.database.api.secretRef');
        expect(problems(planDatabases(nova(), { ...credentials, cell: { username: bad } })).join('\n')).to.contain('spec.database.cell.secretRef');
      });
    }

    it('an 80-character user name of [A-Za-z0-9_] is planned (MariaDB allows 80)', () => {
      const [api] = blocks(planDatabases(nova(), { ...credentials, api: { username: `U_${'9'.repeat(78)}` } }));
      expect(api.steps[1]).to.deep.include({ kind: 'User', username: `U_${'9'.repeat(78)}` });
    });

    it('every problem is reported at once', () => {
      expect(problems(planDatabases(nova(withDatabases('a-b', 'c-d')), { api: { username: 'x y' }, cell: { username: 'x;y' } }))).to.have.length(4);
    });

    it('on one cluster the blocks may share no schema: an api schema equal to the cell schema or to cell0 (case folded) is refused', () => {
      expect(problems(planDatabases(nova(withDatabases('nova', 'nova')), credentials))[0]).to.contain('also a schema of the cell block');
      expect(problems(planDatabases(nova(withDatabases('NOVA_cell0', 'nova')), credentials))[0]).to.contain('also a schema of the cell block');
    });

    it('on one cluster the blocks may share no user (two sizes and two passwords would undo each other every pass); on two clusters they may', () => {
      expect(problems(planDatabases(nova(), { api: { username: 'nova' }, cell: { username: 'nova' } }))[0]).to.contain('each block needs a user of its own');
      const base = spec().database;
      const apart = nova({ database: { api: base.api, cell: { ...base.cell, clusterRef: { name: 'other' } } } });
      expect(planDatabases(apart, { api: { username: 'nova' }, cell: { username: 'nova' } }).ok).to.equal(true);
      expect(planDatabases({ ...apart, spec: { ...apart.spec, database: { ...apart.spec.database, api: { ...base.api, database: 'nova' } } } }, credentials).ok).to.equal(true);
    });

    it('a Nova name whose derived {name}-cell0 exceeds 253 characters is refused', () => {
      expect(problems(planDatabases(nova({}, 'n'.repeat(249)), credentials))[0]).to.contain('-cell0');
      expect(planDatabases(nova({}, 'n'.repeat(247)), credentials).ok).to.equal(true);
    });
  });

  describe('max_user_connections sized for the CR\'s own topology', () => {
    const sizes = (over: Partial<NovaSpec> = {}) => {
      const [api, cell] = blocks(planDatabases(nova(over), credentials));
      const size = (b: BlockPlan) => {
        const user = b.steps.find((s) => s.kind === 'User');
        return user?.kind === 'User' ? user.maxUserConnections : NaN;
      };
      return { api: size(api), cell: size(cell) };
    };

    it('a pool holds max_pool_size 5 + max_overflow 10 = 15 connections', () => {
      expect([OSLO_DB_MAX_POOL_SIZE, OSLO_DB_MAX_OVERFLOW, CONNECTIONS_PER_POOL]).to.deep.equal([5, 10, 15]);
    });

    it('the default topology exceeds the mariadb-operator default of 10 on both users, and the plan carries maxUserConnections(spec)', () => {
      const planned = sizes();
      expect(planned.api).to.be.greaterThan(MARIADB_OPERATOR_DEFAULT_MAX_USER_CONNECTIONS);
      expect(planned.cell).to.be.greaterThan(MARIADB_OPERATOR_DEFAULT_MAX_USER_CONNECTIONS);
      expect(planned).to.deep.equal(maxUserConnections(spec()));
    });

    it('the default topology, worked out: 1 replica each plus one surge pod, console proxy off, three Jobs', () => {
      expect(podsPerRole(spec())).to.deep.equal({ api: 2, conductor: 2, scheduler: 2, metadata: 2, consoleProxy: 0, dbSyncJob: 1, archiveJob: 1, discoverHostsJob: 1 });
      // nova_api: api, conductor, scheduler, metadata (2 pods each) and the three Jobs, one pool each.
      // cells: api and conductor hold cell0 and cell pools (2 × 2 each), scheduler and metadata the cell (2 each),
      // db-sync and archive both cells (2 each), discover-hosts the cell (1).
      expect(maxUserConnections(spec())).to.deep.equal({ api: (8 + 3) * 15, cell: (4 + 4 + 2 + 2 + 2 + 2 + 1) * 15 });
    });

    it('grows with spec.replicas (every Deployment, surge included)', () => {
      const one = maxUserConnections(spec());
      const four = maxUserConnections(spec({ replicas: 4 }));
      expect(podsPerRole(spec({ replicas: 4 }))).to.deep.include({ api: 5, conductor: 5, scheduler: 5, metadata: 5 });
      expect(four.api).to.equal(one.api + 4 * 3 * 15);
      expect(four.cell).to.be.greaterThan(one.cell);
    });

    it('the API counts autoscaling.maxReplicas when autoscaling is set, not spec.replicas', () => {
      const scaled = spec({ replicas: 2, autoscaling: { minReplicas: 2, maxReplicas: 10 } });
      expect(podsPerRole(scaled)).to.deep.include({ api: 13, conductor: 3 });
      const unscaled = maxUserConnections(spec({ replicas: 2 }));
      // 10 more API pods (13 against 3): one nova_api pool each, two cell pools each.
      expect(maxUserConnections(scaled)).to.deep.equal({ api: unscaled.api + 10 * 15, cell: unscaled.cell + 10 * 2 * 15 });
    });

    it('the console proxy counts on the cell user only, and only while enabled', () => {
      const off = maxUserConnections(spec());
      const on = maxUserConnections(spec({ consoleProxy: { enabled: true } }));
      expect(maxUserConnections(spec({ consoleProxy: { enabled: false } }))).to.deep.equal(off);
      expect(on.api).to.equal(off.api);
      expect(on.cell).to.equal(off.cell + 2 * 15);
      expect(SCHEMAS_OPENED.consoleProxy).to.deep.equal(['cell']);
    });

    it('spec.replicas defaults to 1', () => {
      expect(maxUserConnections(spec())).to.deep.equal(maxUserConnections(spec({ replicas: 1 })));
    });
  });
});
