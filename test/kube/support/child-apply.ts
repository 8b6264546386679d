/** A child process for the cross-process tests: opens the source named in argv[2] and applies the manifest on stdin. */
import { openResourceSource } from '../../../src/kube/open.js';

const spec = process.argv[2];
if (!spec) throw new Error('usage: child-apply <source spec> < manifest.json');
const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
const source = await openResourceSource(spec);
await source.apply(JSON.parse(Buffer.concat(chunks).toString('utf8')));
await source.close();
