// .wrec reading and proto decoding (protocol.md §4, §10)
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const protobuf = require('protobufjs');
export const root = new protobuf.Root().loadSync(new URL('../../proto/watten_net/v1/watten.proto', import.meta.url).pathname, { keepCase: true });
const T = (n) => root.lookupType('watten_net.v1.' + n);
export const dec = (n, b) => T(n).toObject(T(n).decode(b), { longs: Number, bytes: Buffer, defaults: true, arrays: true, oneofs: true });
export const encP = (n, o) => Buffer.from(T(n).encode(T(n).fromObject(o)).finish());
export function readWrec(buf) {
  const magic = 'WATTEN-RECORD/1\n';
  if (buf.subarray(0, 16).toString('ascii') !== magic) throw new Error('bad magic');
  const out = []; let o = 16;
  while (o < buf.length) { const kind = buf[o]; const len = buf.readUInt32BE(o + 1); out.push({ kind, bytes: buf.subarray(o + 5, o + 5 + len), offset: o }); o += 5 + len; }
  return out;
}
