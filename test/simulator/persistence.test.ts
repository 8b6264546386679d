import { expect } from 'chai';
import axios from 'axios';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, SEED } from '../../src/simulator/index.js';

const token = async (authUrl: string, password: string) => {
  const response = await axios.post(`${authUrl}/auth/tokens`, {
    auth: { identity: { methods: ['password'], password: { user: { name: 'demo', domain: { name: 'Default' }, password } } }, scope: { project: { name: 'demo', domain: { name: 'Default' } } } },
  });
  return String(response.headers['x-subject-token']);
};

describe('simulator: a kept cloud (statePath)', function () {
  this.timeout(20_000);

  it('a server created before a restart is there after it, settled, under the same id; tokens are not kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regent-sim-state-'));
    const statePath = join(dir, 'simulator.json');
    try {
      const first = await startSimulator({ clock: 'real', delays: { serverBuild: 50 }, statePath });
      const password = first.credentials.demo.password;
      const t1 = await token(first.authUrl, password);
      const created = await axios.post(`${first.url}/compute/v2.1/servers`, { server: { name: 'kept', imageRef: SEED.images.cirros, flavorRef: '2', networks: 'none' } }, { headers: { 'X-Auth-Token': t1 } });
      const id = String(created.data.server.id);
      await first.close(); // waits for BUILD → ACTIVE, then saves

      const second = await startSimulator({ clock: 'real', statePath });
      try {
        const stale = await axios.get(`${second.url}/compute/v2.1/servers/${id}`, { headers: { 'X-Auth-Token': t1 }, validateStatus: () => true });
        expect(stale.status).to.equal(401);
        const t2 = await token(second.authUrl, password);
        const server = await axios.get(`${second.url}/compute/v2.1/servers/${id}`, { headers: { 'X-Auth-Token': t2 } });
        expect(server.data.server.name).to.equal('kept');
        expect(server.data.server.status).to.equal('ACTIVE');
        expect(server.data.server['OS-SRV-USG:launched_at']).to.be.a('string');
        // the catalog points at the new port
        expect(second.url).to.not.equal(first.url);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('without a readable save the cloud is seeded as usual', async () => {
    const sim = await startSimulator({ clock: 'real', statePath: join(tmpdir(), `regent-missing-${process.pid}`, 'nope.json') });
    try {
      const t = await token(sim.authUrl, sim.credentials.demo.password);
      const images = await axios.get(`${sim.url}/image/v2/images`, { headers: { 'X-Auth-Token': t } });
      expect(images.data.images.map((i: { id: string }) => i.id)).to.include(SEED.images.cirros);
    } finally {
      await sim.close();
      rmSync(join(tmpdir(), `regent-missing-${process.pid}`), { recursive: true, force: true });
    }
  });
});
