/** Conformance of the toxic endpoints with Toxiproxy 2.x over real HTTP. */
import { addToxic, call, createProxy, goWording, pn, Resources, startApi, startPeer, type ConformanceApi } from './helpers';

const resources = new Resources();
let api: ConformanceApi;

beforeEach(async () => {
  api = await startApi(resources);
  const upstream = await startPeer(resources);
  await createProxy(api.url, pn('p'), upstream.address);
});
afterEach(() => resources.closeAll());

describe('POST /proxies/{proxy}/toxics', () => {
  it('answers 200 (not 201) with Toxiproxy defaults: downstream, toxicity 1, name <type>_<stream>, zero attributes', async () => {
    const answer = await call(api.url, 'POST', `/proxies/${pn('p')}/toxics`, { type: 'latency' });
    expect(answer.status).toBe(200);
    expect(answer.contentType).toBe('application/json');
    expect(answer.json).toEqual({
      name: 'latency_downstream',
      type: 'latency',
      stream: 'downstream',
      toxicity: 1,
      attributes: { latency: 0, jitter: 0 },
    });
  }, 10_000);

  it.each([
    ['latency', { latency: 0, jitter: 0 }],
    ['bandwidth', { rate: 0 }],
    ['slow_close', { delay: 0 }],
    ['timeout', { timeout: 0 }],
    ['reset_peer', { timeout: 0 }],
    ['slicer', { average_size: 0, size_variation: 0, delay: 0 }],
    ['limit_data', { bytes: 0 }],
    ['noop', {}],
  ])(
    'knows %s with attributes %j',
    async (type, attributes) => {
      const answer = await call(api.url, 'POST', `/proxies/${pn('p')}/toxics`, { type, stream: 'upstream' });
      expect(answer.json).toEqual({ name: `${type}_upstream`, type, stream: 'upstream', toxicity: 1, attributes });
    },
    10_000,
  );

  it('keeps given fields, ignores unknown attributes, accepts the stream in any case', async () => {
    const answer = await call(api.url, 'POST', `/proxies/${pn('p')}/toxics`, {
      name: 'slow',
      type: 'latency',
      stream: 'UPSTREAM',
      toxicity: 0.25,
      attributes: { latency: 120, jitter: 5, extra: 'ignored' },
    });
    expect(answer.json).toEqual({
      name: 'slow',
      type: 'latency',
      stream: 'UPSTREAM',
      toxicity: 0.25,
      attributes: { latency: 120, jitter: 5 },
    });
  }, 10_000);

  it.each([
    ['an unknown type', { type: 'earthquake' }, 400, 'invalid toxic type'],
    ['no type', {}, 400, 'invalid toxic type'],
    [
      'a bad stream (checked before the type)',
      { type: 'earthquake', stream: 'sideways' },
      400,
      'stream was invalid, can be either upstream or downstream',
    ],
    ['an empty stream', { type: 'noop', stream: '' }, 400, 'stream was invalid, can be either upstream or downstream'],
    [
      'a string toxicity',
      { type: 'noop', toxicity: 'high' },
      400,
      'bad request body: json: cannot unmarshal string into Go struct field ToxicWrapper.toxicity of type float32',
    ],
    [
      'a fractional integer attribute',
      { type: 'latency', attributes: { latency: 1.5 } },
      400,
      'bad request body: json: cannot unmarshal number 1.5 into Go struct field LatencyToxic.latency of type int64',
    ],
    [
      'a string attribute',
      { type: 'bandwidth', attributes: { rate: '100' } },
      400,
      'bad request body: json: cannot unmarshal string into Go struct field BandwidthToxic.rate of type int64',
    ],
    [
      'attributes that are not an object',
      { type: 'latency', attributes: 5 },
      400,
      'bad request body: json: cannot unmarshal number 5 into Go struct field ToxicWrapper.attributes of type toxics.NoopToxic',
    ],
    ['an empty body', '', 400, 'bad request body: EOF'],
  ])(
    'answers the Toxiproxy error for %s',
    async (_case, body, status, message) => {
      const answer = await call(api.url, 'POST', `/proxies/${pn('p')}/toxics`, body);
      expect(answer.json).toEqual({ error: goWording(message), status });
      expect(answer.status).toBe(status);
    },
    10_000,
  );

  it('answers 409 for a name already used in either stream', async () => {
    await addToxic(api.url, pn('p'), { name: 'shared', type: 'noop', stream: 'upstream' });
    const answer = await call(api.url, 'POST', `/proxies/${pn('p')}/toxics`, { name: 'shared', type: 'latency', stream: 'downstream' });
    expect(answer.status).toBe(409);
    expect(answer.json).toEqual({ error: 'toxic already exists', status: 409 });
    expect((await call(api.url, 'POST', `/proxies/${pn('p')}/toxics`, { type: 'noop', stream: 'upstream' })).status).toBe(200);
    expect((await call(api.url, 'POST', `/proxies/${pn('p')}/toxics`, { type: 'noop', stream: 'upstream' })).status).toBe(409);
  }, 10_000);

  it('answers 404 "proxy not found" for an unknown proxy', async () => {
    expect((await call(api.url, 'POST', `/proxies/${pn('absent')}/toxics`, { type: 'noop' })).json).toEqual({
      error: 'proxy not found',
      status: 404,
    });
    expect((await call(api.url, 'GET', `/proxies/${pn('absent')}/toxics`)).json).toEqual({ error: 'proxy not found', status: 404 });
    expect((await call(api.url, 'GET', `/proxies/${pn('absent')}/toxics/x`)).status).toBe(404);
  }, 10_000);
});

describe('GET /proxies/{proxy}/toxics and /toxics/{toxic}', () => {
  it('lists upstream toxics first, then downstream, each in insertion order', async () => {
    await addToxic(api.url, pn('p'), { name: 'd1', type: 'noop' });
    await addToxic(api.url, pn('p'), { name: 'u1', type: 'noop', stream: 'upstream' });
    await addToxic(api.url, pn('p'), { name: 'd2', type: 'noop' });
    await addToxic(api.url, pn('p'), { name: 'u2', type: 'noop', stream: 'upstream' });
    const answer = await call(api.url, 'GET', `/proxies/${pn('p')}/toxics`);
    expect(answer.status).toBe(200);
    expect(answer.json.map((toxic: { name: string }) => toxic.name)).toEqual(['u1', 'u2', 'd1', 'd2']);
    expect((await call(api.url, 'GET', `/proxies/${pn('p')}`)).json.toxics.map((toxic: { name: string }) => toxic.name)).toEqual([
      'u1',
      'u2',
      'd1',
      'd2',
    ]);
  }, 10_000);

  it('answers an empty array with no toxic, 200 with a toxic, 404 "toxic not found"', async () => {
    expect((await call(api.url, 'GET', `/proxies/${pn('p')}/toxics`)).json).toEqual([]);
    await addToxic(api.url, pn('p'), { type: 'limit_data', attributes: { bytes: 10 } });
    const found = await call(api.url, 'GET', `/proxies/${pn('p')}/toxics/limit_data_downstream`);
    expect(found.status).toBe(200);
    expect(found.json).toEqual({
      name: 'limit_data_downstream',
      type: 'limit_data',
      stream: 'downstream',
      toxicity: 1,
      attributes: { bytes: 10 },
    });
    expect((await call(api.url, 'GET', `/proxies/${pn('p')}/toxics/absent`)).json).toEqual({ error: 'toxic not found', status: 404 });
  }, 10_000);
});

describe('POST and PATCH /proxies/{proxy}/toxics/{toxic}', () => {
  it.each(['POST', 'PATCH'])(
    '%s merges attributes, keeps omitted ones, updates toxicity, ignores name/type/stream',
    async (method) => {
      await addToxic(api.url, pn('p'), { name: 'lag', type: 'latency', toxicity: 0.5, attributes: { latency: 100, jitter: 10 } });
      const jitterOnly = await call(api.url, method, `/proxies/${pn('p')}/toxics/lag`, { attributes: { jitter: 20 } });
      expect(jitterOnly.status).toBe(200);
      expect(jitterOnly.json).toEqual({
        name: 'lag',
        type: 'latency',
        stream: 'downstream',
        toxicity: 0.5,
        attributes: { latency: 100, jitter: 20 },
      });
      const toxicityOnly = await call(api.url, method, `/proxies/${pn('p')}/toxics/lag`, {
        toxicity: 1,
        name: 'renamed',
        type: 'noop',
        stream: 'upstream',
      });
      expect(toxicityOnly.json).toEqual({
        name: 'lag',
        type: 'latency',
        stream: 'downstream',
        toxicity: 1,
        attributes: { latency: 100, jitter: 20 },
      });
    },
    10_000,
  );

  it('answers 404 for an unknown toxic (before reading the body) and 400 for wrong types', async () => {
    expect((await call(api.url, 'PATCH', `/proxies/${pn('p')}/toxics/absent`, '{oops')).json).toEqual({
      error: 'toxic not found',
      status: 404,
    });
    await addToxic(api.url, pn('p'), { type: 'timeout' });
    const answer = await call(api.url, 'PATCH', `/proxies/${pn('p')}/toxics/timeout_downstream`, { attributes: { timeout: 'soon' } });
    expect(answer.status).toBe(400);
    expect(answer.json.error).toEqual(
      goWording('bad request body: json: cannot unmarshal string into Go struct field TimeoutToxic.timeout of type int64'),
    );
    expect((await call(api.url, 'GET', `/proxies/${pn('p')}/toxics/timeout_downstream`)).json.attributes).toEqual({ timeout: 0 });
  }, 10_000);
});

describe('DELETE /proxies/{proxy}/toxics/{toxic}', () => {
  it('answers 204 with no body, then 404', async () => {
    await addToxic(api.url, pn('p'), { type: 'noop' });
    const answer = await call(api.url, 'DELETE', `/proxies/${pn('p')}/toxics/noop_downstream`);
    expect(answer.status).toBe(204);
    expect(answer.text).toBe('');
    expect((await call(api.url, 'GET', `/proxies/${pn('p')}/toxics`)).json).toEqual([]);
    expect((await call(api.url, 'DELETE', `/proxies/${pn('p')}/toxics/noop_downstream`)).json).toEqual({
      error: 'toxic not found',
      status: 404,
    });
  }, 10_000);
});
