/**
 * TEST ONLY. Calls to the test server over the client package's generated gRPC stub, for what the client
 * itself never does. `rawAppend`: an `Append` driven message by message, so a test can stop between
 * messages and either half-close the request stream (`end`) or leave it open for the process to be killed
 * (`hang`). `rawStalledSubscription`: a subscription whose responses are never read.
 */
import * as grpc from '@grpc/grpc-js';
import sharedPb from '@eventstore/db-client/generated/shared_pb.js';
import streamsGrpc from '@eventstore/db-client/generated/streams_grpc_pb.js';
import streamsPb from '@eventstore/db-client/generated/streams_pb.js';
import { newEventId } from '../../../src/events/ids.js';

type AppendResp = InstanceType<typeof streamsPb.AppendResp>;

export interface RawAppend {
  /** Settles with the server's answer; never settles for a call left open. */
  readonly answer: Promise<AppendResp>;
  close(): void;
}

/** Sends the options (expected revision: no stream) and `count` JSON events to `stream`; half-closes if `finish` is `end`. */
export const rawAppend = async (url: string, stream: string, count: number, finish: 'end' | 'hang'): Promise<RawAppend> => {
  const address = /^esdb:\/\/([^/?]+)/.exec(url)?.[1];
  if (!address) throw new Error(`rawAppend: not an esdb:// URL: ${url}`);
  const client = new streamsGrpc.StreamsClient(address, grpc.credentials.createInsecure());
  let call: grpc.ClientWritableStream<InstanceType<typeof streamsPb.AppendReq>> | undefined;
  const answer = new Promise<AppendResp>((resolve, reject) => {
    call = client.append((error: grpc.ServiceError | null, response?: AppendResp) => (error || !response ? reject(error ?? new Error('no response')) : resolve(response)));
  });
  answer.catch(() => undefined);
  if (!call) throw new Error('rawAppend: the stub made no call');
  const write = (request: InstanceType<typeof streamsPb.AppendReq>): Promise<void> =>
    new Promise((resolve, reject) => call?.write(request, (error: Error | null | undefined) => (error ? reject(error) : resolve())));

  const options = new streamsPb.AppendReq.Options();
  const identifier = new sharedPb.StreamIdentifier();
  identifier.setStreamName(Buffer.from(stream, 'utf8'));
  options.setStreamIdentifier(identifier);
  options.setNoStream(new sharedPb.Empty());
  const header = new streamsPb.AppendReq();
  header.setOptions(options);
  await write(header);
  for (let n = 0; n < count; n += 1) {
    const message = new streamsPb.AppendReq.ProposedMessage();
    const id = new sharedPb.UUID();
    id.setString(newEventId());
    message.setId(id);
    message.getMetadataMap().set('type', 'raw.appended');
    message.getMetadataMap().set('content-type', 'application/json');
    message.setData(Buffer.from(JSON.stringify({ n }), 'utf8'));
    message.setCustomMetadata(Buffer.from('{}', 'utf8'));
    const request = new streamsPb.AppendReq();
    request.setProposedMessage(message);
    await write(request);
  }
  if (finish === 'end') call.end();
  return { answer, close: () => client.close() };
};

/**
 * Subscribes to `$all` from the start over the generated stub and never reads a response: the server's
 * writes back up (HTTP/2 flow control) until one of them waits for 'drain'.
 */
export const rawStalledSubscription = (url: string): { close(): void } => {
  const address = /^esdb:\/\/([^/?]+)/.exec(url)?.[1];
  if (!address) throw new Error(`rawStalledSubscription: not an esdb:// URL: ${url}`);
  const client = new streamsGrpc.StreamsClient(address, grpc.credentials.createInsecure());
  const options = new streamsPb.ReadReq.Options();
  const all = new streamsPb.ReadReq.Options.AllOptions();
  all.setStart(new sharedPb.Empty());
  options.setAll(all);
  options.setSubscription(new streamsPb.ReadReq.Options.SubscriptionOptions());
  options.setNoFilter(new sharedPb.Empty());
  options.setReadDirection(streamsPb.ReadReq.Options.ReadDirection.FORWARDS);
  options.setResolveLinks(false);
  const uuidOption = new streamsPb.ReadReq.Options.UUIDOption();
  uuidOption.setString(new sharedPb.Empty());
  options.setUuidOption(uuidOption);
  const request = new streamsPb.ReadReq();
  request.setOptions(options);
  const call = client.read(request);
  call.on('error', () => undefined);
  call.pause();
  return {
    close: () => {
      call.cancel();
      client.close();
    },
  };
};

