import { expect } from 'chai';
import YAML from 'yaml';
import { openApiDocument, openApiText, SchemaValidators } from '../../src/api/openapi.js';
import { startApiRig, type ApiRig } from './rig.js';

describe('api: the OpenAPI contract and the server', () => {
  let rig: ApiRig;
  before(async () => (rig = await startApiRig()));
  after(async () => rig.close());

  it('GET /openapi.yaml serves the document (OpenAPI 3.1), without a token', async () => {
    const reply = await rig.call('GET', '/openapi.yaml', { token: null });
    expect(reply.status).to.equal(200);
    expect(reply.headers.get('content-type')).to.contain('application/yaml');
    expect(reply.body).to.equal(openApiText());
    const doc = YAML.parse(reply.body as string) as { openapi: string };
    expect(doc.openapi).to.match(/^3\.1\./);
  });

  it('declares the v2 surface, its verbs and the v1 compatibility CRUD', () => {
    const paths = openApiDocument().paths;
    const ops = Object.entries(paths).flatMap(([p, item]) => Object.keys(item).filter((k) => ['get', 'post', 'put', 'delete'].includes(k)).map((m) => `${m.toUpperCase()} ${p}`));
    const v1 = '/api/v1/organizations/{organizationID}/projects/{projectID}/identities/{identityID}/servers';
    expect(ops).to.include.members([
      'POST /api/v2/servers', 'GET /api/v2/servers', 'GET /api/v2/servers/{serverID}', 'PUT /api/v2/servers/{serverID}', 'DELETE /api/v2/servers/{serverID}',
      'POST /api/v2/servers/{serverID}/start', 'POST /api/v2/servers/{serverID}/stop', 'POST /api/v2/servers/{serverID}/softreboot', 'POST /api/v2/servers/{serverID}/hardreboot',
      'GET /api/v2/servers/{serverID}/consoleoutput', 'GET /api/v2/servers/{serverID}/consolesession', 'POST /api/v2/servers/{serverID}/snapshot',
      'GET /api/v2/servers/{serverID}/sshkey', 'POST /api/v2/servers/{serverID}/provider-create-gates',
      `POST ${v1}`, `GET ${v1}`, `GET ${v1}/{serverID}`, `PUT ${v1}/{serverID}`, `DELETE ${v1}/{serverID}`,
    ]);
  });

  it('every component schema compiles under the 2020-12 draft', () => {
    const validators = new SchemaValidators();
    for (const name of Object.keys(openApiDocument().components.schemas)) expect(() => validators.schema(name), name).not.to.throw();
  });

  it('an unknown route answers 404 with the error body and the request id it also sends as x-request-id', async () => {
    const response = await fetch(`${rig.api.url}/api/v3/nothing`);
    expect(response.status).to.equal(404);
    const body = (await response.json()) as Record<string, string>;
    expect(Object.keys(body).sort()).to.deep.equal(['error', 'error_description', 'request_id']);
    expect(body.error).to.equal('not_found');
    expect(body.request_id).to.equal(response.headers.get('x-request-id'));
  });
});
