/**
 * TEST ONLY. An EventStoreDB `Append` call driven message by message over the client package's generated
 * gRPC stub, so a test can stop between messages — which the client's `appendToStream` never does — and
 * either half-close the request stream (`end`) or leave it open for the process to be killed (`hang`).
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
