/**
 * The one module that imports the EventStoreDB client. Everything else in the adapter uses the names
 * re-exported here, so moving to the maintained successor `@kurrent/kurrentdb-client` (same API, same
 * generated protocol files) is a change of the package name in the imports below.
 *
 * The client (6.2.1) offers a server-side filter only on subscriptions; `readAllFiltered` sends the
 * same filtered `Read` request for a bounded read of `$all`, built from the client's own generated
 * messages and sent through its own channel (its protected `GRPCStreamCreator`).
 */
import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  jsonEvent,
  streamNameFilter,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type AppendExpectedRevision,
  type Position,
  type ReadPosition,
} from '@eventstore/db-client';
import sharedPb from '@eventstore/db-client/generated/shared_pb.js';
import streamsGrpc from '@eventstore/db-client/generated/streams_grpc_pb.js';
import streamsPb from '@eventstore/db-client/generated/streams_pb.js';
import * as readStreamModule from '@eventstore/db-client/dist/streams/utils/ReadStream.js';
import * as convertModule from '@eventstore/db-client/dist/utils/convertGrpcEvent.js';
import type { Readable } from 'node:stream';

export {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  jsonEvent,
  streamNameFilter,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type AppendExpectedRevision,
  type Position,
  type ReadPosition,
};

/** The package the adapter speaks through, for descriptions and errors. */
export const CLIENT_PACKAGE = '@eventstore/db-client';

export const connect = (url: string): EventStoreDBClient => EventStoreDBClient.connectionString(url);

/** The protected members of the client that `readAllFiltered` uses. */
interface ClientInternals {
  GRPCStreamCreator(client: unknown, debugName: string, creator: (client: { read(req: unknown, ...args: unknown[]): Readable }) => Readable): () => Promise<Readable>;
  callArguments(options: object, callOptions?: object): unknown[];
}

/**
 * Reads `$all` forwards from `from` (inclusive), at most `maxCount` events, keeping only streams that
 * start with one of `prefixes` — the filter is evaluated by the server.
 */
export const readAllFiltered = (client: EventStoreDBClient, from: ReadPosition, prefixes: readonly string[], maxCount: number): AsyncIterable<AllStreamResolvedEvent> => {
  const options = new streamsPb.ReadReq.Options();
  const all = new streamsPb.ReadReq.Options.AllOptions();
  if (from === START) all.setStart(new sharedPb.Empty());
  else if (from === END) all.setEnd(new sharedPb.Empty());
  else {
    const position = new streamsPb.ReadReq.Options.Position();
    position.setCommitPosition(from.commit.toString(10));
    position.setPreparePosition(from.prepare.toString(10));
    all.setPosition(position);
  }
  options.setAll(all);
  options.setResolveLinks(false);
  options.setCount(String(maxCount));
  const uuid = new streamsPb.ReadReq.Options.UUIDOption();
  uuid.setString(new sharedPb.Empty());
  options.setUuidOption(uuid);
  options.setReadDirection(0);
  const expression = new streamsPb.ReadReq.Options.FilterOptions.Expression();
  expression.setPrefixList([...prefixes]);
  const filter = new streamsPb.ReadReq.Options.FilterOptions();
  filter.setStreamIdentifier(expression);
  filter.setCount(new sharedPb.Empty());
  filter.setCheckpointintervalmultiplier(1);
  options.setFilter(filter);
  const request = new streamsPb.ReadReq();
  request.setOptions(options);
  const internals = client as unknown as ClientInternals;
  const create = internals.GRPCStreamCreator(streamsGrpc.StreamsClient, 'readAllFiltered', (grpc) =>
    grpc.read(request, ...internals.callArguments({}, { deadline: Infinity })),
  );
  return new readStreamModule.ReadStream(create as never, convertModule.convertGrpcEvent as never, {}) as unknown as AsyncIterable<AllStreamResolvedEvent>;
};
