/**
 * The Toxiproxy endpoints (`api.go`): same checks in the same order, same status codes.
 * Note the asymmetries Toxiproxy has and clients rely on: creating a proxy answers 201,
 * creating a toxic 200; deletes and `/reset` answer 204 with no body.
 */
import { apiErrors, toApiErrorBody } from '../apiErrors';
import type { Proxy } from '../proxy';
import { decodePopulate, decodeProxyCreate, decodeProxyUpdate, decodeToxicCreate, decodeToxicUpdate } from './decoders';
import type { ApiContext, ApiRequest, ApiResponse, Handler } from './types';

const ok = (body: unknown): ApiResponse => ({ status: 200, body });
const noContent: ApiResponse = { status: 204 };

function proxyParam(request: ApiRequest, context: ApiContext): Proxy {
  return context.collection.get(request.params.proxy ?? '');
}

export const proxyIndex: Handler = (_request, { collection }) =>
  ok(Object.fromEntries(collection.list().map((proxy) => [proxy.name, proxy])));

export const proxyCreate: Handler = (request, { collection }) =>
  collection.exclusive(async () => {
    const input = decodeProxyCreate(request.json());
    if (input.name === '') throw apiErrors.missingField('name');
    if (input.upstream === '') throw apiErrors.missingField('upstream');
    return { status: 201, body: await collection.add(input) };
  });

export const proxyShow: Handler = (request, context) => ok(proxyParam(request, context));

export const proxyUpdate: Handler = (request, context) =>
  context.collection.exclusive(async () => {
    const proxy = proxyParam(request, context);
    await proxy.update(decodeProxyUpdate(request.json(), proxy));
    return ok(proxy);
  });

export const proxyDelete: Handler = (request, context) =>
  context.collection.exclusive(async () => {
    await context.collection.remove(proxyParam(request, context).name);
    return noContent;
  });

export const toxicIndex: Handler = (request, context) => ok(proxyParam(request, context).toxics.list());

export const toxicCreate: Handler = (request, context) =>
  context.collection.exclusive(() => {
    const proxy = proxyParam(request, context);
    return ok(proxy.toxics.add(decodeToxicCreate(request.json())));
  });

export const toxicShow: Handler = (request, context) => {
  const toxic = proxyParam(request, context).toxics.find(request.params.toxic ?? '');
  if (!toxic) throw apiErrors.toxicNotFound();
  return ok(toxic);
};

export const toxicUpdate: Handler = (request, context) =>
  context.collection.exclusive(() => {
    const proxy = proxyParam(request, context);
    return ok(proxy.toxics.update(request.params.toxic ?? '', () => decodeToxicUpdate(request.json())));
  });

export const toxicDelete: Handler = (request, context) =>
  context.collection.exclusive(() => {
    proxyParam(request, context).toxics.remove(request.params.toxic ?? '');
    return noContent;
  });

export const resetState: Handler = (_request, { collection }) =>
  collection.exclusive(async () => {
    await collection.reset();
    return noContent;
  });

export const populate: Handler = (request, { collection }) =>
  collection.exclusive(async () => {
    const inputs = decodePopulate(request.json());
    // Every entry is checked before anything changes, as Toxiproxy does.
    inputs.forEach((input, index) => {
      if (input.name === '') throw apiErrors.missingField(`name at proxy ${index + 1}`);
      if (input.upstream === '') throw apiErrors.missingField(`upstream at proxy ${index + 1}`);
    });
    const outcome = await collection.populate(inputs);
    if (outcome.error === undefined) return { status: 201, body: { proxies: outcome.proxies } };
    // Toxiproxy reports the failure and the proxies handled before it, in one body.
    const failure = toApiErrorBody(outcome.error);
    return { status: failure.status, body: { ...failure, proxies: outcome.proxies } };
  });

/** `{"version": ...}` as Toxiproxy, plus `extensions` so a harness can tell this server supports the events endpoints. */
export const version: Handler = (_request, context) => ok({ version: context.version, extensions: ['events', 'connections'] });
