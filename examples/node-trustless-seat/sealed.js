// libsodium crypto_box_seal / crypto_box_seal_open as trustless.md T11 describes it.
import crypto from 'node:crypto';
import { x25519 } from '@noble/curves/ed25519.js';
import { xsalsa20poly1305, hsalsa } from '@noble/ciphers/salsa.js';
import { blake2b } from '@noble/hashes/blake2.js';
import { p, powmod, leToInt, intToLe, decodeXY } from './group.js';

// Ed25519 public key -> X25519 u = (1 + y) / (1 - y) mod p
export function edPkToX25519(pk) { const b = Buffer.from(pk); b[31] &= 0x7f; const y = leToInt(b); return intToLe((1n + y) * powmod((1n - y + p) % p, p - 2n) % p); }
// Ed25519 seed -> X25519 secret: first 32 bytes of SHA-512(seed)
export const edSeedToX25519 = (seed) => crypto.createHash('sha512').update(seed).digest().subarray(0, 32);
const le32 = (b) => { const w = new Uint32Array(b.length / 4); for (let i = 0; i < w.length; i++) w[i] = b.readUInt32LE(4 * i); return w; };
function beforenm(shared) { // crypto_box_beforenm: HSalsa20(shared, 0^16)
  const out = new Uint32Array(8); hsalsa(le32(Buffer.from('expand 32-byte k', 'ascii')), le32(Buffer.from(shared)), new Uint32Array(4), out);
  const b = Buffer.alloc(32); out.forEach((w, i) => b.writeUInt32LE(w, 4 * i)); return b;
}
const nonceOf = (epk, rpk) => Buffer.from(blake2b(Buffer.concat([epk, rpk]), { dkLen: 24 }));
export function seal(msg, edPk) {
  const rpk = edPkToX25519(edPk); const esk = crypto.randomBytes(32); const epk = Buffer.from(x25519.getPublicKey(esk));
  const k = beforenm(x25519.getSharedSecret(esk, rpk));
  return Buffer.concat([epk, Buffer.from(xsalsa20poly1305(k, nonceOf(epk, rpk)).encrypt(msg))]);
}
export function sealOpen(box, edSeed, edPk) {
  box = Buffer.from(box); const epk = box.subarray(0, 32); const rsk = edSeedToX25519(edSeed); const rpk = edPkToX25519(edPk);
  if (!Buffer.from(x25519.getPublicKey(rsk)).equals(rpk)) throw new Error('converted keys disagree');
  const k = beforenm(x25519.getSharedSecret(rsk, epk));
  return Buffer.from(xsalsa20poly1305(k, nonceOf(epk, rpk)).decrypt(box.subarray(32)));
}
