/** A debug-level JSON logger kept in memory: to see which requests a client sent and what they answered. */
import { Writable } from 'node:stream';
import winston from 'winston';
import type { Logger } from '../../../src/log/logger.js';

export interface RequestLine {
  service: string;
  method: string;
  path: string;
  status?: number;
  message: string;
}

export interface LogCapture {
  logger: Logger;
  text(): string;
  /** The `openstack request` lines (method, path, status) in order. */
  requests(): RequestLine[];
}

export const captureLogs = (): LogCapture => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  const logger = winston.createLogger({ level: 'debug', format: winston.format.json(), transports: [new winston.transports.Stream({ stream })] });
  return {
    logger,
    text: () => lines.join(''),
    requests: () =>
      lines
        .map((line) => JSON.parse(line) as RequestLine)
        .filter((line) => line.message === 'openstack request'),
  };
};
