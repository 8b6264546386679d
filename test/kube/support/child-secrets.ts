/**
 * A child process for the secret store's cross-process test: opens the source named in argv[2],
 * waits until argv[7] (epoch ms) so that two children start together, then puts argv[5] times into
 * one secret and prints the versions it was given, as JSON. The data is `{writer, n}` (not secret).
 */
import { openResourceSource } from '../../../src/kube/open.js';

const [spec, namespace, name, writer, count, startAt] = process.argv.slice(2);
if (!spec || !namespace || !name || !writer || !count || !startAt) throw new Error('usage: child-secrets <spec> <namespace> <name> <writer> <count> <startAt>');
const source = await openResourceSource(spec);
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAt) - Date.now())));
const versions: string[] = [];
for (let n = 0; n < Number(count); n++) versions.push((await source.secrets.put(namespace, name, { writer, n: String(n) })).version);
await source.close();
process.stdout.write(JSON.stringify(versions));
