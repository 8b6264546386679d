/**
 * TEST ONLY. A gRPC server on 127.0.0.1 that speaks EventStoreDB's `event_store.client.streams.Streams`
 * service — Append, and Read for stream reads (forwards/backwards), bounded `$all` reads with a
 * stream-prefix filter, and catch-up subscriptions to a stream or to `$all` — on top of Regent's
 * MemoryEventStore, using the generated definitions that ship with `@eventstore/db-client`. It lets the
 * real client speak the real wire protocol where no EventStoreDB can be installed. What it does not do
 * is listed in src/store/eventstoredb/README.md ("What the test server does not do").
 *
 * Append is all or nothing, as on EventStoreDB: the events of a client-streamed `Append` are collected
 * as they arrive and written only when the client half-closes its request stream. A call whose HTTP/2
 * stream was aborted — the client process SIGKILLed or its connection reset mid-append — is discarded,
 * however many events had arrived. grpc-js cannot be trusted to tell these apart: Node's http2 ends the
 * readable side of an aborted stream too, grpc-js turns that end into a half-close, and the handler sees
 * `end` before `cancelled`. Trusting that `end` stored the first events of a killed writer's batch as if
 * they were all of it (the flaky "SIGKILLed at an arbitrary moment" conformance case, issue 24: a
 * 100-event batch-3 stored with only its first events). So the handler asks the HTTP/2 stream itself
 * (`requestAborted`), reached through a grpc-js internal that is checked on every call (an upgrade that
 * moves it fails every append loudly). What the server cannot tell apart is listed in the README's Caveats.
 */
import type { ServerHttp2Stream } from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import sharedPb from '@eventstore/db-client/generated/shared_pb.js';
import streamsGrpc from '@eventstore/db-client/generated/streams_grpc_pb.js';
import streamsPb from '@eventstore/db-client/generated/streams_pb.js';
import type { NewEvent, RecordedEvent } from '../../../src/events/envelope.js';
import { InvalidStoreRequest, WrongExpectedVersion } from '../../../src/store/errors.js';
import { MemoryEventStore } from '../../../src/store/memory.js';
import type { ExpectedRevision, StreamFilter, Subscription } from '../../../src/store/port.js';

type ReadReq = InstanceType<typeof streamsPb.ReadReq>;
type AppendReq = InstanceType<typeof streamsPb.AppendReq>;
type AppendResp = InstanceType<typeof streamsPb.AppendResp>;
type ReadResp = InstanceType<typeof streamsPb.ReadResp>;

/** What one Read call asked for, as the server decoded it (the tests assert on these). */
export interface ReceivedRead {
  target: 'stream' | '$all';
  stream?: string;
  subscription: boolean;
  /** The server-side stream-name prefix filter, when the request carried one. */
  prefixes?: string[];
  direction: 'forwards' | 'backwards';
}

export interface EsdbTestServer {
  /** `esdb://127.0.0.1:<port>?tls=false` */
  readonly url: string;
  /** Every Read request received, in order. */
  readonly reads: ReceivedRead[];
  /** Number of Append calls received. */
  readonly appends: () => number;
  /** Number of events received in Append calls so far, counted as each arrives (before any commit). */
  readonly proposedReceived: () => number;
  /** How each Append call ended, in the order they ended. */
  readonly appendOutcomes: () => readonly AppendOutcome[];
  /** Number of Read calls currently open (subscriptions and reads in flight). */
  readonly openReads: () => number;
  /** Number of Read calls waiting for their client to take what was sent (a write waiting for 'drain'). */
  readonly stalledReads: () => number;
  /** Ends every open Read call (subscriptions included) with UNAVAILABLE, as a dropped connection would. */
  dropAll(): void;
  /** Ends every open Read call normally (status OK), as a server shutting a subscription down might. */
  endAll(): void;
  close(): Promise<void>;
}

/**
 * `committed`: written. `refused`: answered with an error (wrong expected version, …), nothing written.
 * `discarded`: the client's request stream never completed (aborted, cancelled): nothing written, no answer.
 */
export type AppendOutcome = 'committed' | 'refused' | 'discarded';

/**
 * The HTTP/2 stream under a grpc-js server call. grpc-js (1.14) does not expose it: the handler's call keeps
 * its BaseServerInterceptingCall as `call`, which keeps the Http2Stream as `stream`.
 */
const http2StreamOf = (call: object): ServerHttp2Stream | undefined => {
  const stream = (call as { call?: { stream?: Partial<ServerHttp2Stream> } }).call?.stream;
  return typeof stream?.aborted === 'boolean' && typeof stream.closed === 'boolean' ? (stream as ServerHttp2Stream) : undefined;
};

/**
 * True when the request stream ended because it was aborted, not because the client half-closed it. A
 * half-close leaves the HTTP/2 stream open (half-closed remote) until the server answers; an abort (socket
 * gone, RST_STREAM) closes it first and only then ends its readable side.
 */
const requestAborted = (http2Stream: ServerHttp2Stream): boolean => http2Stream.aborted || http2Stream.closed || http2Stream.destroyed;

/** The bytes of one EventStoreDB event, kept in a memory-store event (base64 so it is JSON). */
interface Stored {
  contentType: string;
  data: string;
  metadata: string;
  created: string;
}

/**
 * Wire positions are byte-offset-like, as on a real server: not contiguous and far above 0. Commit =
 * prepare for every event, as EventStoreDB reports for events written through gRPC (implicit transactions).
 */
const FIRST_POSITION = 4_096;
const POSITION_STRIDE = 173;
const toWire = (memoryPosition: number): string => String(FIRST_POSITION + POSITION_STRIDE * memoryPosition);
/** The memory `after` for a read that includes `wire` (reads) or starts after it (subscriptions). */
const memoryAfter = (wire: number, inclusive: boolean): number => {
  const steps = (wire - FIRST_POSITION) / POSITION_STRIDE;
  return Math.max(0, inclusive ? Math.ceil(steps) - 1 : Math.floor(steps));
};

const NANOS_100_PER_MS = 10_000n;
const UNIX_EPOCH_TICKS = 621_355_968_000_000_000n;

const streamNameOf = (identifier: InstanceType<typeof sharedPb.StreamIdentifier> | undefined): string =>
  Buffer.from(identifier?.getStreamName_asU8() ?? new Uint8Array()).toString('utf8');

const toEventMessage = (event: RecordedEvent): ReadResp => {
  const stored = event.data as unknown as Stored & { type: string };
  const record = new streamsPb.ReadResp.ReadEvent.RecordedEvent();
  const id = new sharedPb.UUID();
  id.setString(event.id);
  record.setId(id);
  const identifier = new sharedPb.StreamIdentifier();
  identifier.setStreamName(Buffer.from(event.stream, 'utf8'));
  record.setStreamIdentifier(identifier);
  record.setStreamRevision(String(event.revision));
  record.setCommitPosition(toWire(event.position));
  record.setPreparePosition(toWire(event.position));
  record.getMetadataMap().set('type', event.type);
  record.getMetadataMap().set('content-type', stored.contentType);
  record.getMetadataMap().set('created', stored.created);
  record.setData(Buffer.from(stored.data, 'base64'));
  record.setCustomMetadata(Buffer.from(stored.metadata, 'base64'));
  const readEvent = new streamsPb.ReadResp.ReadEvent();
  readEvent.setEvent(record);
  readEvent.setCommitPosition(toWire(event.position));
  const response = new streamsPb.ReadResp();
  response.setEvent(readEvent);
  return response;
};

const unimplemented = (details: string): grpc.ServiceError =>
  Object.assign(new Error(details), { code: grpc.status.UNIMPLEMENTED, details, metadata: new grpc.Metadata() });

export const startEsdbTestServer = async (store = new MemoryEventStore()): Promise<EsdbTestServer> => {
  const server = new grpc.Server();
  const reads: ReceivedRead[] = [];
  const open = new Set<{ call: grpc.ServerWritableStream<ReadReq, ReadResp>; stop(): void }>();
  let appends = 0;
  let proposed = 0;
  let stalled = 0;
  const outcomes: AppendOutcome[] = [];

  const append = (call: grpc.ServerReadableStream<AppendReq, AppendResp>, callback: grpc.sendUnaryData<AppendResp>): void => {
    appends += 1;
    const http2Stream = http2StreamOf(call);
    if (!http2Stream) {
      const details = 'test server: cannot see the HTTP/2 stream under the Append call (grpc-js internals moved: see http2StreamOf)';
      outcomes.push('refused');
      return callback(Object.assign(new Error(details), { code: grpc.status.INTERNAL, details, metadata: new grpc.Metadata() }));
    }
    let options: InstanceType<typeof streamsPb.AppendReq.Options> | undefined;
    const events: NewEvent[] = [];
    // The call's outcome is decided once: by its end, or by a cancellation that comes first (an abort
    // that arrives while data is still buffered destroys the stream without any end).
    let decided = false;
    const discard = (): void => {
      if (decided) return;
      decided = true;
      outcomes.push('discarded');
    };
    call.on('cancelled', discard);
    call.on('data', (request: AppendReq) => {
      if (request.hasOptions()) options = request.getOptions();
      const message = request.getProposedMessage();
      if (!message) return;
      proposed += 1;
      const metadata = message.getMetadataMap();
      const stored: Stored & { type: string } = {
        type: 'esdb',
        contentType: metadata.get('content-type') ?? 'application/octet-stream',
        data: Buffer.from(message.getData_asU8()).toString('base64'),
        metadata: Buffer.from(message.getCustomMetadata_asU8()).toString('base64'),
        created: String(BigInt(Date.now()) * NANOS_100_PER_MS + UNIX_EPOCH_TICKS),
      };
      events.push({
        id: message.getId()?.getString() ?? '',
        type: metadata.get('type') ?? '',
        data: stored as unknown as NewEvent['data'],
        metadata: {} as NewEvent['metadata'],
      });
    });
    call.on('error', () => undefined);
    call.on('end', () => {
      // An aborted request stream ends too (see the header): its events are a prefix of a batch.
      if (decided || call.cancelled || requestAborted(http2Stream)) return discard();
      decided = true;
      void (async () => {
        if (!options) {
          outcomes.push('refused');
          return callback(unimplemented('append without options'));
        }
        const stream = streamNameOf(options.getStreamIdentifier());
        const Case = streamsPb.AppendReq.Options.ExpectedStreamRevisionCase;
        const kind = options.getExpectedStreamRevisionCase();
        let expected: ExpectedRevision;
        if (kind === Case.REVISION) expected = Number(options.getRevision());
        else if (kind === Case.NO_STREAM) expected = 'no_stream';
        else if (kind === Case.ANY) expected = 'any';
        else {
          outcomes.push('refused');
          return callback(unimplemented('the test server does not implement stream_exists'));
        }
        const response = new streamsPb.AppendResp();
        try {
          const result = await store.append(stream, events, { expectedRevision: expected });
          const success = new streamsPb.AppendResp.Success();
          success.setCurrentRevision(String(result.nextExpectedRevision));
          const position = new streamsPb.AppendResp.Position();
          position.setCommitPosition(toWire(result.position));
          position.setPreparePosition(toWire(result.position));
          success.setPosition(position);
          response.setSuccess(success);
          outcomes.push('committed');
        } catch (error) {
          outcomes.push('refused');
          if (error instanceof WrongExpectedVersion) {
            const wrong = new streamsPb.AppendResp.WrongExpectedVersion();
            if (error.actualRevision === undefined) wrong.setCurrentNoStream(new sharedPb.Empty());
            else wrong.setCurrentRevision(String(error.actualRevision));
            if (expected === 'any') wrong.setExpectedAny(new sharedPb.Empty());
            else if (expected === 'no_stream') wrong.setExpectedNoStream(new sharedPb.Empty());
            else wrong.setExpectedRevision(String(expected));
            response.setWrongExpectedVersion(wrong);
          } else {
            // A real server answers a repeated event id as an idempotent retry (same stream) or writes it
            // (another stream); the memory store refuses it, and the fake says so rather than pretend.
            const details = error instanceof InvalidStoreRequest ? `test server: ${error.message}` : String(error);
            return callback(Object.assign(new Error(details), { code: grpc.status.FAILED_PRECONDITION, details, metadata: new grpc.Metadata() }));
          }
        }
        callback(null, response);
      })();
    });
  };

  const read = (call: grpc.ServerWritableStream<ReadReq, ReadResp>): void => {
    const options = call.request.getOptions();
    if (!options) return void call.emit('error', unimplemented('read without options'));
    const O = streamsPb.ReadReq.Options;
    const subscription = options.getCountOptionCase() === O.CountOptionCase.SUBSCRIPTION;
    const direction = options.getReadDirection() === 1 ? 'backwards' : 'forwards';
    const count = subscription ? Infinity : Number(options.getCount());
    const maxCount = Number.isSafeInteger(count) ? count : undefined;
    let filter: StreamFilter | undefined;
    const received: ReceivedRead = { target: options.getStreamOptionCase() === O.StreamOptionCase.STREAM ? 'stream' : '$all', subscription, direction };
    if (options.getFilterOptionCase() === O.FilterOptionCase.FILTER) {
      const expression = options.getFilter()?.getStreamIdentifier();
      if (!expression || expression.getRegex() !== '') return void call.emit('error', unimplemented('the test server filters on stream-name prefixes only'));
      received.prefixes = expression.getPrefixList();
      filter = { streamPrefixes: received.prefixes };
    }
    let stopped = false;
    let halt = (): void => undefined;
    const halted = new Promise<void>((resolve) => {
      halt = resolve;
    });
    let live: Subscription | undefined;
    const entry = {
      call,
      stop: () => {
        stopped = true;
        halt();
        void live?.close();
        open.delete(entry);
      },
    };
    open.add(entry);
    call.on('cancelled', entry.stop);
    call.on('error', entry.stop);
    const send = async (message: ReadResp): Promise<void> => {
      if (stopped) return;
      if (call.write(message)) return;
      stalled += 1;
      try {
        // A call dropped or cancelled during the wait never drains: waiting for 'drain' alone held the
        // memory store's subscription handler for ever, so closing that store (the server's close) hung.
        await Promise.race([new Promise<void>((resolve) => call.once('drain', () => resolve())), halted]);
      } finally {
        stalled -= 1;
      }
    };
    const fail = (error: unknown): void => {
      if (stopped) return;
      entry.stop();
      const details = String(error instanceof Error ? error.message : error);
      call.emit('error', Object.assign(new Error(details), { code: grpc.status.INTERNAL, details, metadata: new grpc.Metadata() }));
    };
    const finish = (): void => {
      if (stopped) return;
      entry.stop();
      call.end();
    };

    const run = async (): Promise<void> => {
      if (received.target === 'stream') {
        const streamOptions = options.getStream();
        const stream = streamNameOf(streamOptions?.getStreamIdentifier());
        received.stream = stream;
        reads.push(received);
        const Rev = O.StreamOptions.RevisionOptionCase;
        const head = await store.streamHead(stream);
        const revisionCase = streamOptions?.getRevisionOptionCase();
        if (subscription) {
          const confirmation = new streamsPb.ReadResp.SubscriptionConfirmation();
          confirmation.setSubscriptionId(`test-${reads.length}`);
          const response = new streamsPb.ReadResp();
          response.setConfirmation(confirmation);
          await send(response);
          // Subscriptions from a revision are exclusive of it, as on a real server.
          let after = revisionCase === Rev.REVISION ? Number(streamOptions?.getRevision()) : -1;
          if (revisionCase === Rev.END) after = head ?? -1;
          live = store.subscribe({ filter: { streamPrefixes: [stream] } }, async (event) => {
            if (event.stream === stream && event.revision > after) await send(toEventMessage(event));
          });
          live.done.catch(fail);
          return;
        }
        if (head === undefined) {
          const notFound = new streamsPb.ReadResp.StreamNotFound();
          notFound.setStreamIdentifier(streamOptions?.getStreamIdentifier());
          const response = new streamsPb.ReadResp();
          response.setStreamNotFound(notFound);
          await send(response);
          return finish();
        }
        let fromRevision: number | undefined;
        if (revisionCase === Rev.REVISION) fromRevision = Number(streamOptions?.getRevision());
        else if (revisionCase === Rev.END) fromRevision = direction === 'backwards' ? head : head + 1;
        if (direction === 'forwards' && fromRevision !== undefined && fromRevision > head) return finish();
        const events = await store.readStream(stream, { direction, fromRevision: direction === 'backwards' ? Math.min(fromRevision ?? head, head) : fromRevision, maxCount });
        for (const event of events) await send(toEventMessage(event));
        return finish();
      }

      reads.push(received);
      const all = options.getAll();
      const A = O.AllOptions.AllOptionCase;
      if (direction === 'backwards') {
        // only what `lastPosition()` asks: the newest records of $all, from its end, unfiltered
        if (subscription || filter || all?.getAllOptionCase() !== A.END) return fail(unimplemented('the test server reads $all backwards only from the end, unfiltered'));
        for (const event of (await store.readAll()).reverse().slice(0, maxCount)) await send(toEventMessage(event));
        return finish();
      }
      const last = (await store.readAll()).at(-1)?.position ?? 0;
      // Reads include the position they start at, subscriptions start after it.
      let after = 0;
      if (all?.getAllOptionCase() === A.POSITION) {
        after = memoryAfter(Number(all.getPosition()?.getPreparePosition()), !subscription);
      } else if (all?.getAllOptionCase() === A.END) after = last;
      if (!subscription) {
        for (const event of await store.readAll({ after, filter, maxCount })) await send(toEventMessage(event));
        return finish();
      }
      const confirmation = new streamsPb.ReadResp.SubscriptionConfirmation();
      confirmation.setSubscriptionId(`test-${reads.length}`);
      const response = new streamsPb.ReadResp();
      response.setConfirmation(confirmation);
      await send(response);
      live = store.subscribe({ after, filter }, async (event) => send(toEventMessage(event)));
      live.done.catch(fail);
    };
    run().catch(fail);
  };

  const implementation: grpc.UntypedServiceImplementation = {
    append,
    read,
    batchAppend: (call: grpc.ServerDuplexStream<unknown, unknown>) => call.emit('error', unimplemented('batchAppend')),
    delete: (_call: unknown, callback: grpc.sendUnaryData<unknown>) => callback(unimplemented('delete')),
    tombstone: (_call: unknown, callback: grpc.sendUnaryData<unknown>) => callback(unimplemented('tombstone')),
  };
  server.addService(streamsGrpc.StreamsService, implementation);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound)));
  });

  const dropAll = (): void => {
    for (const entry of [...open]) {
      entry.stop();
      entry.call.emit('error', Object.assign(new Error('dropped by the test server'), {
        code: grpc.status.UNAVAILABLE,
        details: 'dropped by the test server',
        metadata: new grpc.Metadata(),
      }));
    }
  };

  const endAll = (): void => {
    for (const entry of [...open]) {
      entry.stop();
      entry.call.end();
    }
  };

  return {
    url: `esdb://127.0.0.1:${port}?tls=false`,
    endAll,
    reads,
    appends: () => appends,
    proposedReceived: () => proposed,
    appendOutcomes: () => [...outcomes],
    openReads: () => open.size,
    stalledReads: () => stalled,
    dropAll,
    close: async () => {
      dropAll();
      await store.close();
      server.forceShutdown();
    },
  };
};
