// Level 2 mathematics written from docs/trustless.md T1-T8 alone (noble-curves only for point add / scalar mult).
import crypto from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';

export const Point = ed25519.Point;
export const p = 2n ** 255n - 19n;
export const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const mod = (a, m = p) => ((a % m) + m) % m;
export function powmod(b, e, m = p) { let r = 1n; b = mod(b, m); while (e > 0n) { if (e & 1n) r = r * b % m; b = b * b % m; e >>= 1n; } return r; }
const inv = (a) => powmod(a, p - 2n);
export const d = mod(-121665n * inv(121666n));
export const G = Point.BASE;
export const O = Point.ZERO;

export class Fail extends Error { constructor(reason, msg) { super(`${reason}: ${msg || ''}`); this.reason = reason; } }
export const fail = (reason, msg) => { throw new Fail(reason, msg); };

// ---- framing (protocol.md §2) ----
export const sha256 = (b) => crypto.createHash('sha256').update(b).digest();
export function u8(x) { if (x < 0 || x > 255) throw new Error('u8 range ' + x); return Buffer.from([x]); }
export function u32(x) { const b = Buffer.alloc(4); b.writeUInt32BE(x >>> 0); return b; }
export function u64(x) { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(x)); return b; }
const lp = (x) => Buffer.concat([u32(x.length), x]);
export function framed(v, name, ...f) { return Buffer.concat([lp(Buffer.from(`watten/v${v}/${name}`, 'ascii')), ...f.map((x) => lp(Buffer.from(x)))]); }
export const H = (name, ...f) => sha256(framed(1, name, ...f));
export const H2 = (name, ...f) => sha256(framed(2, name, ...f));

// ---- little-endian ints ----
export function leToInt(b) { let r = 0n; for (let i = b.length - 1; i >= 0; i--) r = (r << 8n) | BigInt(b[i]); return r; }
export function intToLe(x, n = 32) { const b = Buffer.alloc(n); for (let i = 0; i < n; i++) { b[i] = Number(x & 0xffn); x >>= 8n; } return b; }

// ---- points (T1) ----
export function sqrtRatio(u, v) { // RFC 8032 5.1.3 candidate root of u/v
  let x = u * powmod(v, 3n) % p * powmod(u * powmod(v, 7n) % p, (p - 5n) / 8n) % p;
  const vx2 = v * x % p * x % p;
  if (vx2 === mod(u)) return x;
  if (vx2 === mod(-u)) return x * powmod(2n, (p - 1n) / 4n) % p;
  return null;
}
// decode RFC 8032 5.1.3; returns {x,y} or throws invalid-point
export function decodeXY(bytes) {
  const b = Buffer.from(bytes); const sign = b[31] >> 7; b[31] &= 0x7f;
  const y = leToInt(b);
  if (y >= p) fail('invalid-point', 'y >= p');
  const u = mod(y * y - 1n), v = mod(d * y * y + 1n);
  let x = sqrtRatio(u, v);
  if (x === null) fail('invalid-point', 'not on curve');
  if (x === 0n && sign === 1) fail('invalid-point', 'x=0 with sign 1');
  if (Number(x & 1n) !== sign) x = p - x;
  return { x, y };
}
// the four checks of T1
export function decodePoint(bytes) {
  if (!bytes || bytes.length !== 32) fail('malformed', 'point not 32 bytes');
  const { x, y } = decodeXY(bytes);
  const P = Point.fromAffine({ x, y });
  if (P.equals(O)) fail('invalid-point', 'identity');
  if (!P.multiplyUnsafe(L - 1n).add(P).equals(O)) fail('invalid-point', 'not of order L'); // L·P == O
  return P;
}
export const enc = (P) => Buffer.from(P.toBytes());
export function decodeScalar(b) {
  if (!b || b.length !== 32) fail('malformed', 'scalar not 32 bytes');
  const s = leToInt(b); if (s >= L) fail('non-canonical-scalar'); return s;
}
export const encS = (s) => intToLe(mod(s, L));
export const mul = (P, k) => { k = mod(k, L); return k === 0n ? O : P.multiply(k); };
export const modL = (a) => mod(a, L);

// ---- hashing into the group (T2) ----
export function hashToScalar(name, ...f) {
  const wide = Buffer.concat([H(name, u8(0), ...f), H(name, u8(1), ...f)]);
  return leToInt(wide) % L;
}
const A = 486662n;
export function fromUniform(r) {
  r = Buffer.from(r); const sign = r[31] >> 7; r[31] &= 0x7f;
  const t = leToInt(r) % p;
  const u1 = mod(-A * inv(mod(1n + 2n * t * t)));
  const g = mod(u1 * u1 * u1 + A * u1 * u1 + u1);
  const u = powmod(g, (p - 1n) / 2n) === p - 1n ? mod(-u1 - A) : u1;
  const y = mod((u - 1n) * inv(u + 1n));
  const e = intToLe(y); e[31] |= sign << 7;
  const { x, y: yy } = decodeXY(e);
  return Point.fromAffine({ x, y: yy }).multiplyUnsafe(8n);
}
export function hashToPoint(name, ...f) {
  const P = fromUniform(H(name, u8(0), ...f)).add(fromUniform(H(name, u8(1), ...f)));
  if (P.equals(O)) throw new Error('hash_to_point hit identity');
  return P;
}

// ---- cards (T3) ----
const cardCache = {};
export function cardPoints(size) {
  if (!cardCache[size]) cardCache[size] = [...Array(size).keys()].map((j) => hashToPoint('trustless/card-point', u8(j)));
  return cardCache[size];
}
export function canonicalDeck(size) {
  const ranks = size === 36 ? ['6', '7', '8', '9', '10', 'U', 'O', 'K', 'A'] : ['7', '8', '9', '10', 'U', 'O', 'K', 'A'];
  const out = [];
  for (const s of ['E', 'L', 'H', 'S']) { if (size === 33 && s === 'S') out.push('S6'); for (const r of ranks) out.push(s + r); }
  return out;
}
export function cardIndex(M, size) {
  const e = enc(M); const cps = cardPoints(size);
  for (let j = 0; j < size; j++) if (enc(cps[j]).equals(e)) return j;
  return -1;
}
export function initialDeck(size, PK) { return cardPoints(size).map((M) => ({ c1: G, c2: M.add(PK) })); }
export const encDeck = (deck) => Buffer.concat(deck.flatMap((c) => [enc(c.c1), enc(c.c2)]));

// ---- deal ids (T4) ----
export const deckDealId = (gameId, dn) => Buffer.concat([gameId, u32(dn), Buffer.from('ffffffff', 'hex')]);
export function firstDealer(gameId, n) { return H('trustless-first-dealer', gameId).readUInt32BE(0) % n; }
export function shuffleOrder(firstDlr, dn, n) { const e = (firstDlr + dn) % n; const o = []; for (let i = 1; i <= n; i++) o.push((e + i) % n); return o; }

// ---- generators (T8) ----
const genCache = [];
export function generator(i) { if (!genCache[i]) genCache[i] = hashToPoint('trustless/shuffle-generator', u32(i)); return genCache[i]; }
const gdCache = {};
export function genDigest(N) {
  if (!gdCache[N]) { const hs = []; for (let i = 0; i <= N; i++) hs.push(enc(generator(i))); gdCache[N] = H('trustless/shuffle-generators', u32(N), Buffer.concat(hs)); }
  return gdCache[N];
}

// ---- message layouts (T5) ----
function splitDealId(b) { return { dealId: b.subarray(0, 40), gameId: b.subarray(0, 32), hand: b.readUInt32BE(32), attempt: b.readUInt32BE(36) }; }
export function parseKeyShare(b) {
  b = Buffer.from(b);
  if (b.length !== 138 || b[0] !== 1) fail('malformed', `KeyShareMessage length ${b.length} kind ${b[0]}`);
  return { ...splitDealId(b.subarray(1, 41)), seat: b[41], Xb: b.subarray(42, 74), X: decodePoint(b.subarray(42, 74)), T: decodePoint(b.subarray(74, 106)), z: decodeScalar(b.subarray(106, 138)) };
}
export function parseDecShare(b) {
  b = Buffer.from(b);
  if (b.length !== 171 || b[0] !== 3) fail('malformed', `DecryptionShareMessage length ${b.length} kind ${b[0]}`);
  return { ...splitDealId(b.subarray(1, 41)), position: b[41], seat: b[42], D: decodePoint(b.subarray(43, 75)), A: decodePoint(b.subarray(75, 107)), B: decodePoint(b.subarray(107, 139)), z: decodeScalar(b.subarray(139, 171)) };
}
export function parseShuffle(b, expectN) {
  b = Buffer.from(b);
  if (b.length < 43 || b[0] !== 2) fail('malformed', 'ShuffleMessage kind/short');
  const N = b[42];
  if (N < 1 || N > 64 || (expectN !== undefined && N !== expectN)) fail('malformed', `N ${N}`);
  if (b.length !== 43 + 64 * N + 32 * (5 * N + 9)) fail('malformed', `ShuffleMessage length ${b.length} for N ${N}`);
  const r = { ...splitDealId(b.subarray(1, 41)), seat: b[41], N };
  let o = 43; const pt = () => { const P = decodePoint(b.subarray(o, o + 32)); o += 32; return P; };
  const sc = () => { const s = decodeScalar(b.subarray(o, o + 32)); o += 32; return s; };
  const ptsStart = 43; r.outputsBytes = b.subarray(ptsStart, ptsStart + 64 * N);
  r.outputs = []; for (let i = 0; i < N; i++) { const c1 = pt(); const c2 = pt(); r.outputs.push({ c1, c2 }); }
  r.Cbytes = b.subarray(o, o + 32 * N);
  r.c = []; for (let i = 0; i < N; i++) r.c.push(pt());
  r.chatBytes = b.subarray(o, o + 32 * N);
  r.chat = []; for (let i = 0; i < N; i++) r.chat.push(pt());
  r.tBytes = b.subarray(o, o + 160);
  r.t1 = pt(); r.t2 = pt(); r.t3 = pt(); r.t4c2 = pt(); r.t4c1 = pt();
  r.thatBytes = b.subarray(o, o + 32 * N);
  r.that = []; for (let i = 0; i < N; i++) r.that.push(pt());
  r.s1 = sc(); r.s2 = sc(); r.s3 = sc(); r.s4 = sc();
  r.shat = []; for (let i = 0; i < N; i++) r.shat.push(sc());
  r.sp = []; for (let i = 0; i < N; i++) r.sp.push(sc());
  if (o !== b.length) throw new Error('internal: shuffle layout');
  return r;
}

// ---- key proof (T6) ----
export function keyProofChallenge(gameId, hand, attempt, seat, X, T) {
  return hashToScalar('trustless/key-proof', gameId, u32(hand), u32(attempt), u8(seat), Buffer.from('deal-key', 'ascii'), enc(G), enc(X), enc(T));
}
export function verifyKeyShare(m) {
  const e = keyProofChallenge(m.gameId, m.hand, m.attempt, m.seat, m.X, m.T);
  return mul(G, m.z).equals(m.T.add(mul(m.X, e)));
}
export function makeKeyShare(dealId, seat, x, k) {
  const X = mul(G, x), T = mul(G, k);
  const e = keyProofChallenge(dealId.subarray(0, 32), dealId.readUInt32BE(32), dealId.readUInt32BE(36), seat, X, T);
  const z = modL(k + e * x);
  return Buffer.concat([u8(1), dealId, u8(seat), enc(X), enc(T), encS(z)]);
}

// ---- decryption-share proof (T7) ----
export function decChallenge(gameId, hand, attempt, position, seat, X, c1, c2, D, Ap, Bp) {
  return hashToScalar('trustless/decryption-proof', gameId, u32(hand), u32(attempt), u8(position), u8(seat), enc(G), enc(X), enc(c1), enc(c2), enc(D), enc(Ap), enc(Bp));
}
export function verifyDecShare(m, X, ct) {
  const e = decChallenge(m.gameId, m.hand, m.attempt, m.position, m.seat, X, ct.c1, ct.c2, m.D, m.A, m.B);
  return mul(G, m.z).equals(m.A.add(mul(X, e))) && mul(ct.c1, m.z).equals(m.B.add(mul(m.D, e)));
}
export function makeDecShare(dealId, position, seat, x, ct, k) {
  const X = mul(G, x), D = mul(ct.c1, x), Ap = mul(G, k), Bp = mul(ct.c1, k);
  const e = decChallenge(dealId.subarray(0, 32), dealId.readUInt32BE(32), dealId.readUInt32BE(36), position, seat, X, ct.c1, ct.c2, D, Ap, Bp);
  return Buffer.concat([u8(3), dealId, u8(position), u8(seat), enc(D), enc(Ap), enc(Bp), encS(modL(k + e * x))]);
}

// ---- shuffle proof (T8) ----
function shuffleDelta(gameId, hand, attempt, seat, PK, N, inputsBytes, outputsBytes, Cbytes) {
  return H('trustless/shuffle-statement', gameId, u32(hand), u32(attempt), u8(seat), enc(G), enc(PK), u32(N), genDigest(N), inputsBytes, outputsBytes, Cbytes);
}
const sumPts = (arr) => arr.reduce((a, b) => a.add(b), O);
export function verifyShuffle(m, inputs, PK) {
  const N = m.N; if (inputs.length !== N) fail('malformed', 'deck size');
  const delta = shuffleDelta(m.gameId, m.hand, m.attempt, m.seat, PK, N, encDeck(inputs), m.outputsBytes, m.Cbytes);
  const u = []; for (let j = 0; j < N; j++) u.push(hashToScalar('trustless/shuffle-vector', delta, u32(j)));
  const c = hashToScalar('trustless/shuffle-challenge', delta, m.chatBytes, m.tBytes, m.thatBytes);
  const h = generator(0);
  const uprod = u.reduce((a, b) => a * b % L, 1n);
  const hs = []; for (let i = 1; i <= N; i++) hs.push(generator(i));
  const cbar = sumPts(m.c).subtract(sumPts(hs));
  const chatT = m.chat[N - 1].subtract(mul(h, uprod));
  const ctil = sumPts(m.c.map((cj, j) => mul(cj, u[j])));
  const ap = sumPts(inputs.map((e, j) => mul(e.c2, u[j])));
  const bp = sumPts(inputs.map((e, j) => mul(e.c1, u[j])));
  const nc = L - c;
  const checks = [
    ['t1', m.t1, mul(cbar, nc).add(mul(G, m.s1))],
    ['t2', m.t2, mul(chatT, nc).add(mul(G, m.s2))],
    ['t3', m.t3, mul(ctil, nc).add(mul(G, m.s3)).add(sumPts(m.sp.map((s, i) => mul(hs[i], s))))],
    ['t4_c2', m.t4c2, mul(ap, nc).subtract(mul(PK, m.s4)).add(sumPts(m.sp.map((s, i) => mul(m.outputs[i].c2, s))))],
    ['t4_c1', m.t4c1, mul(bp, nc).subtract(mul(G, m.s4)).add(sumPts(m.sp.map((s, i) => mul(m.outputs[i].c1, s))))],
  ];
  for (let i = 0; i < N; i++) {
    const prev = i === 0 ? h : m.chat[i - 1];
    checks.push([`t̂_${i}`, m.that[i], mul(m.chat[i], nc).add(mul(G, m.shat[i])).add(mul(prev, m.sp[i]))]);
  }
  for (const [name, got, want] of checks) if (!got.equals(want)) return name;
  return null;
}
export function randScalar() { for (;;) { const s = leToInt(crypto.randomBytes(64)) % L; if (s) return s; } }
export function makeShuffle(dealId, seat, inputs, PK, rnd = randScalar) {
  const N = inputs.length; const gameId = dealId.subarray(0, 32), hand = dealId.readUInt32BE(32), attempt = dealId.readUInt32BE(36);
  // ψ: random permutation (Fisher-Yates)
  const psi = [...Array(N).keys()];
  for (let i = N - 1; i > 0; i--) { const j = crypto.randomInt(i + 1); [psi[i], psi[j]] = [psi[j], psi[i]]; }
  const rt = inputs.map(() => rnd());
  const outputs = []; for (let i = 0; i < N; i++) { const j = psi[i]; const e = inputs[j]; outputs.push({ c1: e.c1.add(mul(G, rt[j])), c2: e.c2.add(mul(PK, rt[j])) }); }
  const hs = []; for (let i = 0; i <= N; i++) hs.push(generator(i));
  const r = new Array(N); const cc = new Array(N);
  for (let i = 0; i < N; i++) { const j = psi[i]; r[j] = rnd(); cc[j] = mul(G, r[j]).add(hs[i + 1]); }
  const Cbytes = Buffer.concat(cc.map(enc)); const outputsBytes = encDeck(outputs);
  const delta = shuffleDelta(gameId, hand, attempt, seat, PK, N, encDeck(inputs), outputsBytes, Cbytes);
  const u = []; for (let j = 0; j < N; j++) u.push(hashToScalar('trustless/shuffle-vector', delta, u32(j)));
  const up = psi.map((j) => u[j]);
  const rh = []; const chat = [];
  for (let i = 0; i < N; i++) { rh.push(rnd()); chat.push(mul(G, rh[i]).add(mul(i === 0 ? hs[0] : chat[i - 1], up[i]))); }
  const w1 = rnd(), w2 = rnd(), w3 = rnd(), w4 = rnd(); const wh = [], wp = [];
  for (let i = 0; i < N; i++) { wh.push(rnd()); wp.push(rnd()); }
  const t1 = mul(G, w1), t2 = mul(G, w2);
  const t3 = mul(G, w3).add(sumPts(wp.map((w, i) => mul(hs[i + 1], w))));
  const t4c2 = mul(PK, L - w4).add(sumPts(wp.map((w, i) => mul(outputs[i].c2, w))));
  const t4c1 = mul(G, L - w4).add(sumPts(wp.map((w, i) => mul(outputs[i].c1, w))));
  const that = []; for (let i = 0; i < N; i++) that.push(mul(G, wh[i]).add(mul(i === 0 ? hs[0] : chat[i - 1], wp[i])));
  const chatBytes = Buffer.concat(chat.map(enc)), tBytes = Buffer.concat([t1, t2, t3, t4c2, t4c1].map(enc)), thatBytes = Buffer.concat(that.map(enc));
  const c = hashToScalar('trustless/shuffle-challenge', delta, chatBytes, tBytes, thatBytes);
  const v = new Array(N); v[N - 1] = 1n; for (let i = N - 2; i >= 0; i--) v[i] = v[i + 1] * up[i + 1] % L;
  const sum = (a) => a.reduce((x, y) => (x + y) % L, 0n);
  const s1 = modL(w1 + c * sum(r)), s2 = modL(w2 + c * sum(rh.map((x, i) => x * v[i]))), s3 = modL(w3 + c * sum(r.map((x, j) => x * u[j]))), s4 = modL(w4 + c * sum(rt.map((x, j) => x * u[j])));
  const shat = rh.map((x, i) => modL(wh[i] + c * x)), sp = up.map((x, i) => modL(wp[i] + c * x));
  return { bytes: Buffer.concat([u8(2), dealId, u8(seat), u8(N), outputsBytes, Cbytes, chatBytes, tBytes, thatBytes, ...[s1, s2, s3, s4, ...shat, ...sp].map(encS)]), outputs };
}
