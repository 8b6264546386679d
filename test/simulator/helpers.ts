// Shared plumbing for the simulator's HTTP tests: a simulator per suite, tokens per seed user, and an
// axios instance that never throws on status so tests assert on status and body shape alike.
import axios from 'axios';
import type { AxiosInstance, AxiosResponse } from 'axios';
import { startSimulator } from '../../src/simulator/index.js';
import type { RunningSimulator, SimulatorOptions } from '../../src/simulator/index.js';

export type User = 'admin' | 'demo' | 'other';

export interface Harness {
  sim: RunningSimulator;
  http: AxiosInstance;
  token(user: User): Promise<string>;
  /** Headers for a user, optionally with a microversion header ("compute 2.96"). */
  h(user: User, mv?: string): Promise<Record<string, string>>;
  nova: string;
  volume(user: User): string;
  advance(ms: number): void;
}

export const http = axios.create({ validateStatus: () => true, timeout: 10_000 });

export async function passwordToken(sim: RunningSimulator, user: User, scope?: unknown): Promise<AxiosResponse> {
  const c = sim.credentials[user];
  return http.post(`${sim.authUrl}/auth/tokens`, {
    auth: {
      identity: { methods: ['password'], password: { user: { name: c.username, domain: { name: 'Default' }, password: c.password } } },
      scope: scope ?? { project: { name: c.projectName, domain: { name: 'Default' } } },
    },
  });
}

export async function harness(opts: SimulatorOptions = {}): Promise<Harness> {
  const sim = await startSimulator(opts);
  const tokens = new Map<User, string>();
  const token = async (user: User): Promise<string> => {
    const cached = tokens.get(user);
    if (cached) return cached;
    const r = await passwordToken(sim, user);
    if (r.status !== 201) throw new Error(`token for ${user}: ${r.status}`);
    const t = r.headers['x-subject-token'] as string;
    tokens.set(user, t);
    return t;
  };
  return {
    sim, http, token,
    async h(user, mv) {
      const out: Record<string, string> = { 'X-Auth-Token': await token(user) };
      if (mv) out['OpenStack-API-Version'] = mv;
      return out;
    },
    nova: `${sim.url}/compute/v2.1`,
    volume: (user) => `${sim.url}/volume/v3/${sim.credentials[user].projectId}`,
    advance: (ms) => sim.clock.advance(ms),
  };
}

/** Ids of the seeded networks/images by name, read through the API like a client would. */
export async function networkId(hs: Harness, user: User, name: string): Promise<string> {
  const r = await http.get(`${hs.sim.url}/network/v2.0/networks?name=${name}`, { headers: await hs.h(user) });
  const id = r.data?.networks?.[0]?.id as string | undefined;
  if (!id) throw new Error(`no network ${name}`);
  return id;
}

export async function bootServer(hs: Harness, user: User, name: string, extra: Record<string, unknown> = {}, mv = 'compute 2.96'): Promise<string> {
  const { SEED } = await import('../../src/simulator/index.js');
  const r = await http.post(`${hs.nova}/servers`, { server: { name, imageRef: SEED.images.cirros, flavorRef: '1', networks: 'auto', ...extra } }, { headers: await hs.h(user, mv) });
  if (r.status !== 202) throw new Error(`boot ${name}: ${r.status} ${JSON.stringify(r.data)}`);
  return r.data.server.id as string;
}

export async function getServer(hs: Harness, user: User, id: string, mv = 'compute 2.96'): Promise<AxiosResponse> {
  return http.get(`${hs.nova}/servers/${id}`, { headers: await hs.h(user, mv) });
}
