// A Level 2 (trustless) seat, built on ../node-seat/seat.js (gRPC, envelopes, record) and this folder's checker.
// Every public check is RecordChecker's (the same code that passes the vectors); this file adds the seat's own steps:
// key shares, shuffles, decryption shares, decrypting its own cards, openings, and choosing actions.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import * as g from './group.js';
import { RecordChecker, encodeEnvelope, envSigningBytes, edVerify } from './verify.js';
import { dec, encP } from './wrec.js';
import { seal, sealOpen } from './sealed.js';

const require = createRequire(import.meta.url);
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const protobuf = require('protobufjs');

const PROTO_DIR = new URL('../../proto', import.meta.url).pathname;
const PROTO = path.join(PROTO_DIR, 'watten_net/v1/watten.proto');
const addr = process.argv[2] || '127.0.0.1:47150';
const outDir = process.argv[3] || '/tmp/l2seat';
fs.mkdirSync(outDir, { recursive: true });
const { sha256, framed, u8, u64 } = g;

function log(...a) { console.log(new Date().toISOString().slice(11, 23), ...a); }
const privFromSeed = (seed) => crypto.createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8' });
const rawPub = (priv) => crypto.createPublicKey(priv).export({ format: 'der', type: 'spki' }).subarray(12);
const sign = (priv, m) => crypto.sign(null, m, priv);

// ---------- record (§10) ----------
let recFd = null, recPath = null; const pendingRec = [];
let recordedChain = 0;
function recOpen(name, meta) {
  recPath = path.join(outDir, name);
  if (fs.existsSync(recPath)) { // a restarted seat keeps its record and appends (protocol.md §10)
    const buf = fs.readFileSync(recPath); let o = 16;
    while (o + 5 <= buf.length) { const len = buf.readUInt32BE(o + 1); if (o + 5 + len > buf.length) break; if (buf[o] === 1 || buf[o] === 2) recordedChain++; o += 5 + len; }
    fs.truncateSync(recPath, o); recFd = fs.openSync(recPath, 'a'); pendingRec.splice(0); log('record reopened,', recordedChain, 'chain entries in it');
    return;
  }
  recFd = fs.openSync(recPath, 'w');
  fs.writeSync(recFd, Buffer.from('WATTEN-RECORD/1\n', 'ascii')); recWrite(0, Buffer.from(JSON.stringify(meta), 'utf8'));
  for (const [k, b] of pendingRec.splice(0)) recWrite(k, b);
}
function recWrite(kind, bytes) {
  if (recFd === null) { pendingRec.push([kind, bytes]); return; }
  const h = Buffer.alloc(5); h[0] = kind; h.writeUInt32BE(bytes.length, 1); fs.writeSync(recFd, Buffer.concat([h, bytes])); fs.fsyncSync(recFd);
}

// ---------- identity ----------
const keyFile = path.join(outDir, 'identity.key');
if (!fs.existsSync(keyFile)) fs.writeFileSync(keyFile, crypto.randomBytes(32), { mode: 0o600 });
const mySeed = fs.readFileSync(keyFile); const myPriv = privFromSeed(mySeed); const myPub = rawPub(myPriv);

// ---------- gRPC ----------
const pkgDef = protoLoader.loadSync(PROTO, { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true, includeDirs: [PROTO_DIR] });
const api = grpc.loadPackageDefinition(pkgDef).watten_net.v1;
const client = new api.WattenTable(addr, grpc.credentials.createInsecure(), { 'grpc.initial_reconnect_backoff_ms': 250, 'grpc.max_reconnect_backoff_ms': 1000 });
const call = (m, req) => new Promise((res, rej) => client[m](req, (err, r) => (err ? rej(err) : res(r))));
const statusRoot = protobuf.Root.fromJSON({ nested: { Any: { fields: { type_url: { type: 'string', id: 1 }, value: { type: 'bytes', id: 2 } } },
  Status: { fields: { code: { type: 'int32', id: 1 }, message: { type: 'string', id: 2 }, details: { rule: 'repeated', type: 'Any', id: 3 } } } } });
function errDetail(err) {
  try { const b = err.metadata && err.metadata.get('grpc-status-details-bin')[0]; if (!b) return null;
    const st = statusRoot.lookupType('Status').decode(b);
    for (const d of st.details) if (d.type_url.endsWith('ErrorDetail')) return dec('ErrorDetail', d.value);
  } catch (e) { log('errDetail parse', e.message); }
  return null;
}

// ---------- state ----------
const S = { token: null, seat: null, mySeq: 0, myHead: Buffer.alloc(32), queue: Promise.resolve(), chk: null, chainSeq: 0,
  secrets: {}, sentShuffle: new Set(), answered: new Set(), my: {}, actionPending: false, lastView: null, stopped: null,
  stats: { keyShares: 0, shuffles: 0, shareMsgs: 0, sharesGiven: 0, cardsDecrypted: 0, plays: 0, opens: 0, actions: 0, refusals: 0 } };

function submit(type, payloadObj, onDone) {
  if (S.stopped) return;
  if (S.catchingUp) return; // owed() decides after the catch-up what is still owed
  const payload = encP(type, payloadObj);
  S.queue = S.queue.then(async () => {
    for (let tries = 0; tries < 3; tries++) {
      const e = { game_id: S.gameId, seq: S.mySeq + 1, prev_hash: S.myHead, sender_seat: S.seat, type, payload, signature: Buffer.alloc(0) };
      e.signature = sign(myPriv, envSigningBytes(e, S.seat));
      const bytes = encodeEnvelope(e);
      try {
        const r = await call('SubmitEnvelope', { token: S.token, envelope: bytes });
        S.mySeq = e.seq; S.myHead = sha256(bytes); recWrite(3, bytes);
        log(`sent ${type} seq=${e.seq} -> chain_seq=${r.chain_seq}`);
        if (onDone) onDone(true); return;
      } catch (err) {
        const d = errDetail(err); S.stats.refusals++;
        log(`REFUSED ${type}: ${err.code} ${d ? d.reason + ' ' + d.message : err.details}`);
        if (d && d.receipt && d.receipt.signature && d.receipt.signature.length) recWrite(4, encP('RefusalEvidence', { envelope: bytes, receipt: d.receipt }));
        if (d && d.reason === 'stale-envelope-seq') { await refreshSeq(); continue; }
        if (onDone) onDone(false, d); return;
      }
    }
  }).catch((e) => log('submit error', e));
}
let refreshResolve = null;
function refreshSeq() { return new Promise((res) => { refreshResolve = res; resubscribe(); }); }

function stop(err) {
  S.stopped = err.reason || err.message;
  log(`STOP: check failed at chain seq ${S.chainSeq}: ${err.message}`);
  finish();
}

// ---------- chain ----------
let written = false;
function onChainEntry(ce) {
  if (S.stopped) return;
  const seq = Number(ce.chain_seq);
  if (seq <= S.chainSeq) return;
  if (seq !== S.chainSeq + 1) throw new Error(`chain gap: have ${S.chainSeq}, got ${seq}`);
  if (seq === 1) S.chk = new RecordChecker({ log });
  try {
    if (ce.withheld) { if (seq > recordedChain) recWrite(2, encP('Withheld', ce.withheld)); S.chk.stub(ce.withheld, seq); S.chainSeq = seq; return; }
    const bytes = Buffer.from(ce.envelope);
    written = false;
    S.chk.host(bytes, seq); // every public check (throws g.Fail)
    if (seq > recordedChain || seq === 1) recWrite(1, bytes); written = true; S.chainSeq = seq; S.chainHead = sha256(bytes);
    const env = dec('Envelope', bytes);
    act(env, dec(env.type, env.payload), bytes);
  } catch (e) { if (e instanceof g.Fail) { if (!written && ce.envelope) recWrite(1, Buffer.from(ce.envelope)); stop(e); } else throw e; }
}

const STEP_TIMEOUT_FLOOR_MS = 5000;  // the shortest GameHeader.step_timeout_ms this seat signs (0: no limit, signed)
const secretFile = (d) => path.join(outDir, `deck-${S.gameId.toString('hex').slice(0, 16)}-${d}.key`);
function act(env, p, bytes) {
  const C = S.chk;
  switch (env.type) {
    case 'GameHeader': {
      S.gameId = C.gameId; const mine = p.roster[S.seat];
      if (!mine || !Buffer.from(mine.public_key).equals(myPub)) throw new g.Fail('header-mismatch', 'my key not at my seat');
      if (!Buffer.from(p.join_nonces[S.seat]).equals(S.headerNonce || S.joinNonce)) throw new g.Fail('header-mismatch', 'my join nonce');
      if (p.host_tls_fingerprint.length) throw new g.Fail('header-mismatch', 'TLS fingerprint on a plaintext connection');
      // docs/protocol.md "The step timeout": 0 = no limit; above 0 at least this seat's floor, else nothing is signed
      if (p.step_timeout_ms > 0 && p.step_timeout_ms < STEP_TIMEOUT_FLOOR_MS) throw new g.Fail('short-step-timeout', `the header's step timeout ${p.step_timeout_ms} ms is below ${STEP_TIMEOUT_FLOOR_MS} ms`);
      const fp = g.H('fingerprint', bytes).toString('hex').slice(0, 16).match(/.{4}/g).join('-');
      recOpen(`watten-${fp}-seat${S.seat}.wrec`, { created: new Date().toISOString(), written_by: 'docs-l2 seat (node)', seat: S.seat });
      log('GameHeader', fp, 'first dealer', C.fd, 'rules', p.rules_json);
      submit('HeaderSignature', { seat: S.seat, header_hash: C.headerHash });
      break;
    }
    case 'DeckPrepare': {
      let x;
      if (fs.existsSync(secretFile(p.deck))) { x = g.leToInt(fs.readFileSync(secretFile(p.deck))); log('deck', p.deck, 'secret read back from disk'); }
      else { x = g.randScalar(); fs.writeFileSync(secretFile(p.deck), g.encS(x), { mode: 0o600 }); } // on disk before the KeyShare leaves
      S.secrets[p.deck] = x;
      const msg = g.makeKeyShare(C.decks[p.deck].dealId, S.seat, x, g.randScalar());
      if (PROBE && p.deck === 0) probeKeyShares(C.decks[0].dealId, x, msg);
      if (PROBE && p.deck === 1 && S.lastShuffle) { const b = Buffer.from(S.lastShuffle); C.decks[1].dealId.copy(b, 1); probe('Shuffle before my own KeyShare of the deck', 'out-of-turn', 'Shuffle', { seat: S.seat, message: b, deck: 1 }); }
      submit('KeyShare', { seat: S.seat, message: msg, deck: p.deck }); S.stats.keyShares++;
      break;
    }
    case 'Relay': if (PROBE && !S.probedKey && C.decks[0] && C.decks[0].X[S.seat]) { S.probedKey = true; probeAfterKey(C.decks[0]); }
      onSealed(p); maybeShuffle(); afterShares(); break;
    case 'ShareRequest': if (process.env.SEAT_CRASH && !S.catchingUp && p.hand === Number(process.env.SEAT_CRASH) && p.recipient !== S.seat && p.why === 'deal' && !fs.existsSync(path.join(outDir, 'crashed'))) { fs.writeFileSync(path.join(outDir, 'crashed'), ''); log('TEST: crashing before answering', JSON.stringify(p)); process.exit(9); }
      onShareRequest(p, sha256(bytes)); break;
    case 'ActionAccepted': afterAction(p); break;
    case 'Checkpoint': if (C.away && C.away.has(S.seat)) { log('stood in: not signing the checkpoint'); break; } submit('CheckpointSignature', { hand: p.hand, seat: S.seat, chain_seq: p.chain_seq, chain_head: p.chain_head }); break;
    case 'MatchEnd': S.matchEnd = p; log('MatchEnd', JSON.stringify(p)); break;
    case 'StandIn': log('StandIn', JSON.stringify(p)); break;
    case 'AttemptAborted': log('AttemptAborted', JSON.stringify(p)); break;
    case 'HandEnd': log(`HandEnd h${p.hand} winner side ${p.winner_side} reason ${p.reason} scores ${p.scores}`); break;
    case 'TrustlessDealOpen': log(`TrustlessDealOpen h${p.hand} a${p.attempt} dealer ${p.dealer} deck ${p.deck}`); S.my = {}; S.sealedIn = {}; S.sealedRaw = {}; break;
    default: break;
  }
  if (env.type === 'Relay' || env.type === 'ActionAccepted') maybeAct();
}
function maybeShuffle() {
  if (S.catchingUp) return;
  if (PROBE) for (const D of S.chk.decks) {
    if (D.done || !D.PK || D.sealed || (S.probedOOT || (S.probedOOT = new Set())).has(D.d) || D.order[D.shuffles] === S.seat || D.order.indexOf(S.seat) < D.shuffles) continue;
    S.probedOOT.add(D.d); if (S.probedOOT.size > 1) continue;
    if (!S.lastShuffle) { S.probedOOT.delete(D.d); continue; }
    const b = Buffer.from(S.lastShuffle); D.dealId.copy(b, 1); // an old shuffle relabelled: sent at once, before the real shuffler can move
    probe('Shuffle out of turn (sent within ms)', 'out-of-turn', 'Shuffle', { seat: S.seat, message: b, deck: D.d });
  }
  if (PROBE && !S.probedBadShuffle) for (const D of S.chk.decks) {
    if (D.done || !D.PK || D.sealed || D.order[D.shuffles] !== S.seat) continue;
    S.probedBadShuffle = true;
    const sh = g.makeShuffle(D.dealId, S.seat, D.deck, D.PK); const b = Buffer.from(sh.bytes);
    const o = 43; const t = Buffer.from(b.subarray(o, o + 64)); b.subarray(o + 64, o + 128).copy(b, o); t.copy(b, o + 64); // swap two output ciphertexts
    probe('Shuffle with its first two outputs swapped', 'bad-shuffle-proof', 'Shuffle', { seat: S.seat, message: b, deck: D.d });
    probe('Shuffle of 31 cards, truncated fields', 'non-canonical-scalar or invalid-point (fields decoded before N is compared: T5)', 'Shuffle', { seat: S.seat, message: Buffer.concat([b.subarray(0, 42), Buffer.from([31]), b.subarray(43, 43 + 64 * 31 + 32 * (5 * 31 + 9))]), deck: D.d });
    probe('Shuffle of 31 cards, well-formed (first 31 ciphertexts)', 'malformed', 'Shuffle', { seat: S.seat, message: g.makeShuffle(D.dealId, S.seat, D.deck.slice(0, 31), D.PK).bytes, deck: D.d });
  }
  for (const D of S.chk.decks) {
    if (D.done || !D.PK || D.sealed || S.sentShuffle.has(D.d) || D.order[D.shuffles] !== S.seat) continue;
    S.sentShuffle.add(D.d);
    const t = Date.now(); const sh = g.makeShuffle(D.dealId, S.seat, D.deck, D.PK);
    log(`shuffle of deck ${D.d} made in ${Date.now() - t} ms`);
    submit('Shuffle', { seat: S.seat, message: sh.bytes, deck: D.d }); S.stats.shuffles++; S.lastShuffle = sh.bytes;
  }
}
// my decryption share of position k of the current attempt's deck
function myShare(k) { const A = S.chk.att; return g.makeDecShare(A.D.dealId, k, S.seat, S.secrets[A.D.d], A.D.deck[k], g.randScalar()); }
function onShareRequest(p, reqHash) {
  const A = S.chk.att; // the checker has already held the request against the public deal (deal-mismatch otherwise)
  if (p.why === 'open') {
    if (p.recipient !== S.seat) return;
    const openings = p.positions.map((k) => opening(k));
    if (openings.some((o) => !o)) { log('cannot open a position I never decrypted', p.positions); return; }
    S.stats.opens++;
    submit('ActionRequest', { action: 'open', chain_seq: S.chainSeq, chain_head: S.chainHead, openings });
    return;
  }
  if (PROBE && !S.probedShares && p.why === 'deal' && p.recipient !== S.seat) { S.probedShares = true; probeShares(p, reqHash); }
  if (PROBE && !S.probedOwn && p.why === 'deal' && p.recipient === S.seat) { S.probedOwn = true; probeOwn(p, reqHash); }
  if (p.recipient === S.seat) { if (S.owedMode) return; (A.mine ||= []).push(...p.positions.map((k) => ({ k, why: p.why }))); afterShares(); return; }
  // never share a position of my own; each share once; sealed if I decrypted it myself (T11)
  const shares = [], sealed = [];
  for (const k of p.positions) {
    if (S.my[k] && S.my[k].owner === S.seat) { log('REFUSE to share my own position', k); return; }
    if (A.public[k] && A.public[k][S.seat]) continue;
    if (S.my[k]) { log('SEALING my share of position', k, 'to seat', p.recipient); sealed.push({ position: k, recipient: p.recipient, box: sealTo(p.recipient, myShare(k)) }); }
    else shares.push(myShare(k));
  }
  if (!shares.length && !sealed.length) return;
  S.stats.shareMsgs++; S.stats.sharesGiven += shares.length + sealed.length;
  if (process.env.SEAT_AWAY && p.hand === 1 && !S.wentAway) { // test: owe a step longer than --step-timeout
    S.wentAway = true; log('TEST: holding my DecryptionShares back for', process.env.SEAT_AWAY, 's');
    const payload = { hand: p.hand, attempt: p.attempt, seat: S.seat, request_hash: reqHash, shares, sealed };
    setTimeout(() => submit('DecryptionShares', payload), Number(process.env.SEAT_AWAY) * 1000); return;
  }
  submit('DecryptionShares', { hand: p.hand, attempt: p.attempt, seat: S.seat, request_hash: reqHash, shares, sealed });
}
// decrypt my positions when every other seat's share is in
function afterShares() {
  const A = S.chk.att; if (!A || !A.mine) return;
  for (const it of A.mine) {
    if (S.my[it.k] && S.my[it.k].card) continue;
    const pub = A.public[it.k] || {}; let sum = g.O; let missing = false;
    for (let s = 0; s < S.chk.n; s++) {
      if (s === S.seat) continue;
      const D = pub[s] || (S.sealedIn[it.k] && S.sealedIn[it.k][s]); if (!D) { missing = true; break; } sum = sum.add(D);
    }
    if (missing) continue;
    const ct = A.D.deck[it.k]; sum = sum.add(g.mul(ct.c1, S.secrets[A.D.d]));
    const j = g.cardIndex(ct.c2.subtract(sum), S.chk.size);
    if (j < 0) throw new g.Fail('not-a-card', `my position ${it.k}`);
    const card = g.canonicalDeck(S.chk.size)[j];
    S.my[it.k] = { card, why: it.why, owner: it.why === 'deal' ? S.seat : null };
    S.stats.cardsDecrypted++;
    log(`decrypted position ${it.k} = ${card} (${it.why})`);
  }
}
S.sealedIn = {};
function sealTo(seat, msg) { return seal(msg, S.chk.roster[seat].public_key); }
S.sealedRaw = {};
function onSealed(p) {
  const ie = dec('Envelope', p.envelope); if (ie.type !== 'DecryptionShares') return;
  const q = dec('DecryptionShares', ie.payload); const who = ie.sender_seat; const A = S.chk.att;
  for (const s of q.sealed) {
    if (s.recipient !== S.seat) continue;
    let raw, m;
    try { raw = sealOpen(s.box, mySeed, myPub); m = g.parseDecShare(raw); } catch (e) { throw new g.Fail('bad-sealed-share', 'does not open: ' + e.message); }
    if (m.seat !== who || m.position !== s.position || !m.dealId.equals(A.D.dealId)) throw new g.Fail('bad-sealed-share', 'seat / position / deal id');
    if (!g.verifyDecShare(m, A.D.X[who], A.D.deck[m.position])) throw new g.Fail('bad-sealed-share', 'proof');
    ((S.sealedIn[m.position] ||= {}))[who] = m.D; (S.sealedRaw[m.position] ||= []).push(raw);
    log('sealed share of position', m.position, 'from seat', who, 'opened and verified');
  }
}
function opening(k) {
  const m = S.my[k]; if (!m || !m.card) return null;
  const shares = [myShare(k)];
  for (const raw of (S.sealedRaw && S.sealedRaw[k]) || []) shares.push(raw);
  return { position: k, card: m.card, shares };
}
function afterAction(p) {
  const A = S.chk.att;
  for (const ev of p.events) {
    const f = {}; for (const k in ev.fields) f[k] = JSON.parse(ev.fields[k]);
    if (ev.kind === 'see' && ev.seat === S.seat) S.shown = f.position;
    if (ev.kind === 'take' && ev.seat === S.seat && S.shown !== undefined && S.my[S.shown]) { S.my[S.shown].owner = S.seat; }
    if (ev.kind === 'aside' && ev.seat === S.seat) for (const k of f.positions) if (S.my[k]) S.my[k].aside = true;
    if (ev.kind === 'play' && ev.seat === S.seat && S.my[f.position]) S.my[f.position].played = true;
  }
  if (p.seat === S.seat) S.actionPending = false;
}

// ---------- probes of the host's refusals (trustless.md T12), SEAT_PROBE=1 ----------
const PROBE = !!process.env.SEAT_PROBE;
const SEAL = !!process.env.SEAT_SEAL;
const probeResults = [];
function probe(what, expect, type, payload) {
  submit(type, payload, (ok, d) => { const got = ok ? 'ACCEPTED' : d && d.reason; probeResults.push(`${what}: ${got} (doc: ${expect})`); log(`PROBE ${what}: ${got} (expected ${expect})`); });
}
function probeKeyShares(dealId, x, good) {
  const bad = (f) => { const b = Buffer.from(good); f(b); return b; };
  probe('KeyShare 137 bytes', 'malformed', 'KeyShare', { seat: S.seat, message: good.subarray(0, 137), deck: 0 });
  probe('KeyShare kind byte 02', 'malformed', 'KeyShare', { seat: S.seat, message: bad((b) => { b[0] = 2; }), deck: 0 });
  probe('KeyShare X = identity', 'invalid-point', 'KeyShare', { seat: S.seat, message: bad((b) => { Buffer.from('01' + '00'.repeat(31), 'hex').copy(b, 42); }), deck: 0 });
  probe('KeyShare X small order (y = -1)', 'invalid-point', 'KeyShare', { seat: S.seat, message: bad((b) => { Buffer.from('ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', 'hex').copy(b, 42); }), deck: 0 });
  probe('KeyShare y >= p', 'invalid-point', 'KeyShare', { seat: S.seat, message: bad((b) => { g.intToLe(g.p + 1n).copy(b, 42); }), deck: 0 });
  probe('KeyShare z + L (non-canonical)', 'non-canonical-scalar', 'KeyShare', { seat: S.seat, message: bad((b) => { g.intToLe(g.leToInt(b.subarray(106)) + g.L).copy(b, 106); }), deck: 0 });
  probe('KeyShare z + 1 (bad proof)', 'bad-key-proof', 'KeyShare', { seat: S.seat, message: bad((b) => { g.encS(g.leToInt(b.subarray(106)) + 1n).copy(b, 106); }), deck: 0 });
  probe('KeyShare deal id of deck 1', 'wrong-context', 'KeyShare', { seat: S.seat, message: g.makeKeyShare(g.deckDealId(S.gameId, 1), S.seat, x, g.randScalar()), deck: 0 });
  probe('KeyShare message seat = other', 'wrong-context', 'KeyShare', { seat: S.seat, message: g.makeKeyShare(dealId, 1 - S.seat, x, g.randScalar()), deck: 0 });
  probe('KeyShare payload seat = other', 'wrong-seat', 'KeyShare', { seat: 1 - S.seat, message: good, deck: 0 });
  probe('KeyShare for deck 5 (not prepared)', 'unexpected-message', 'KeyShare', { seat: S.seat, message: g.makeKeyShare(g.deckDealId(S.gameId, 5), S.seat, x, g.randScalar()), deck: 5 });
}
function probeAfterKey(D) { // after my real KeyShare of deck 0
  probe('second, different KeyShare', 'unexpected-message', 'KeyShare', { seat: S.seat, message: g.makeKeyShare(D.dealId, S.seat, g.randScalar(), g.randScalar()), deck: 0 });
}
function probeShares(p, reqHash) {
  const A = S.chk.att; const k = p.positions[0];
  probe('DecryptionShares with no share', 'bad-payload', 'DecryptionShares', { hand: p.hand, attempt: p.attempt, seat: S.seat, request_hash: reqHash, shares: [], sealed: [] });
  const other = [...Array(S.chk.size).keys()].find((j) => !p.positions.includes(j) && !(A.owner[j] !== undefined));
  probe('share of a position not asked', 'not-asked', 'DecryptionShares', { hand: p.hand, attempt: p.attempt, seat: S.seat, request_hash: reqHash, shares: [myShare(other)], sealed: [] });
  const bad = Buffer.from(myShare(k)); g.encS(g.leToInt(bad.subarray(139)) + 1n).copy(bad, 139);
  probe('share with a bad proof', 'bad-decryption-proof', 'DecryptionShares', { hand: p.hand, attempt: p.attempt, seat: S.seat, request_hash: reqHash, shares: [bad], sealed: [] });
  probe('shares naming another attempt', 'wrong-hand', 'DecryptionShares', { hand: p.hand, attempt: p.attempt + 1, seat: S.seat, request_hash: reqHash, shares: [myShare(k)], sealed: [] });
  probe('shares answering no request', 'unexpected-message', 'DecryptionShares', { hand: p.hand, attempt: p.attempt, seat: S.seat, request_hash: crypto.randomBytes(32), shares: [myShare(k)], sealed: [] });
}
function probeOwn(p, reqHash) {
  const k = p.positions[0];
  probe('shares for a request addressed to me', 'own-card while it is open, unexpected-message once answered (T12)', 'DecryptionShares', { hand: p.hand, attempt: p.attempt, seat: S.seat, request_hash: reqHash, shares: [myShare(k)], sealed: [] });
}
function probePlay(c) {
  const o = opening(c.k); const wrong = g.canonicalDeck(S.chk.size).find((x) => x !== c.card && !myCards().some((m) => m.card === x));
  probe('play with an opening naming another card', 'opening-mismatch (or the rules on the claimed card)', 'ActionRequest', { action: `play ${wrong}`, chain_seq: S.chainSeq, chain_head: S.chainHead, openings: [{ ...o, card: wrong }] });
  probe('play without an opening', 'no-position', 'ActionRequest', { action: `play ${c.card}`, chain_seq: S.chainSeq, chain_head: S.chainHead, openings: [] });
  probe('play with an opening lacking my share', 'no-opening', 'ActionRequest', { action: `play ${c.card}`, chain_seq: S.chainSeq, chain_head: S.chainHead, openings: [{ ...o, shares: [] }] });
  probe('play whose opening is another position', 'not-your-position (the rules first, T12) or bad-opening', 'ActionRequest', { action: `play ${c.card}`, chain_seq: S.chainSeq, chain_head: S.chainHead, openings: [{ ...o, position: (c.k + 1) % S.chk.size }] });
  probe('play XX', 'bad-card', 'ActionRequest', { action: 'play XX', chain_seq: S.chainSeq, chain_head: S.chainHead, openings: [] });
}

// ---------- after a restart: what the chain shows I still owe (T10, protocol-decisions "Restarts") ----------
function owed() {
  const C = S.chk; if (!C || S.stopped) return; log('caught up at chain seq', S.chainSeq, '; sending what is still owed');
  if (!C.headerSigs.has(S.seat)) submit('HeaderSignature', { seat: S.seat, header_hash: C.headerHash });
  for (const D of C.decks) {
    if (D.done || D.X[S.seat]) continue;
    log('owed: KeyShare of deck', D.d);
    submit('KeyShare', { seat: S.seat, message: g.makeKeyShare(D.dealId, S.seat, S.secrets[D.d], g.randScalar()), deck: D.d });
  }
  S.sentShuffle.clear(); maybeShuffle();
  const A = C.att;
  if (A && !A.over) {
    S.owedMode = true;
    for (const r of A.requests) {
      if (r.why === 'open') { if (r.recipient === S.seat && r.positions.some((k) => !A.opened[k])) { log('owed: open', r.positions); onShareRequest(r, r.hash); } continue; }
      if (r.recipient !== S.seat && !r.answered.has(S.seat)) { log('owed: shares for request', r.recipient, r.positions); onShareRequest(r, r.hash); }
    }
    S.owedMode = false;
    afterShares();
  }
  const cp = C.lastCheckpoint;
  if (cp && cp.need.includes(S.seat) && !cp.signed.has(S.seat)) { log('owed: CheckpointSignature', cp.chain_seq); submit('CheckpointSignature', { hand: cp.hand, seat: S.seat, chain_seq: cp.chain_seq, chain_head: cp.chain_head }); }
}

// ---------- choosing actions ----------
const KRIT = { bavarian: ['HK', 'S7', 'E7'] };
function myCards() { return Object.entries(S.my).filter(([, m]) => m.card && m.owner === S.seat && !m.aside && !m.played).map(([k, m]) => ({ k: Number(k), card: m.card })); }
const rankOf = (c) => c.slice(1);
function trickCards(t) { return t && t.cards ? t.cards.map((c) => (typeof c === 'string' ? c : c.card)) : []; }
function legalPlays(v) {
  const cards = myCards(); const rules = S.chk.rules; const krit = rules.kritische || [];
  const tricks = v.tricks || []; const cur = v.current_trick;
  const played = cur && cur.cards ? cur.cards : [];
  if (rules.follow === 'trump-lead' && played.length > 0 && v.schlag && v.trump) {
    // rules.md §4 trump-lead: a trick led with a trump binds every follower holding a trump-suit card or a Schlag card
    const lead = trickCards(cur)[0]; const T = v.trump, R = v.schlag;
    const weliTrump = (c) => c === 'S6' && (R === '6' || rules.weli_role === 'lowest-trump' || T === 'S');
    const haupt = R === '6' ? 'S6' : T + R;
    const ranks = S.chk.size === 36 ? ['6', '7', '8', '9', '10', 'U', 'O', 'K', 'A'] : ['7', '8', '9', '10', 'U', 'O', 'K', 'A'];
    const guate = rules.guate && R !== '6' ? T + ranks[(ranks.indexOf(R) + 1) % ranks.length] : (rules.guate && rules.guate_on_weli_schlag === 'trump7' ? T + '7' : null);
    const isTrump = (c) => c === haupt || c === guate || suitOf(c) === T || weliTrump(c);
    if (isTrump(lead)) {
      const qual = cards.filter((c) => suitOf(c.card) === T || (R !== '6' && rankOf(c.card) === R) || weliTrump(c.card) || c.card === haupt || c.card === guate);
      const forcing = qual.filter((c) => c.card !== haupt && c.card !== guate);
      if (forcing.length) return qual;
    }
    return cards;
  }
  // follow = hauptschlag-lead (rules.md §4): first card of the hand is the Hauptschlag
  if (rules.follow === 'hauptschlag-lead' && tricks.length === 0 && played.length > 0 && v.schlag && v.trump) {
    const lead = played[0].card || played[0];
    const haupt = v.trump + v.schlag;
    const kritPlayed = played.some((c) => krit.includes(c.card || c));
    if (lead === haupt && !(kritPlayed && rules.follow_released !== false)) {
      const ok = cards.filter((c) => krit.includes(c.card) || c.card.startsWith(v.trump) && !(c.card === v.trump + '10' && false));
      const must = ok.filter((c) => krit.includes(c.card) || suitOf(c.card) === v.trump);
      if (must.length) return must;
    }
  }
  return cards;
}
const suitOf = (c) => c[0];
function maybeAct() { if (S.lastView) onView(S.lastView); }
function onView(v) {
  S.lastView = v;
  if (S.stopped || S.actionPending || !S.chk || !S.chk.att) return;
  if (Number(v.chain_seq) !== S.chainSeq) return;
  const acts = v.legal_actions || []; if (!acts.length) return;
  const A = S.chk.att;
  // T9 item 7: while a ShareRequest of why deal/see lacks a share, the host refuses game actions (dealing)
  if (A.requests.some((r) => r.why !== 'open' && r.answered.size < S.chk.n)) return;
  // Maschine (T9 item 9): claim it by ourselves as soon as we hold every Kritischer
  const krit0 = S.chk.rules.kritische || [];
  if (krit0.length && acts.includes('maschine') && !A.maschineSent) {
    const mine = myCards(); const ks = krit0.map((c) => mine.find((m) => m.card === c));
    if (ks.every(Boolean)) { A.maschineSent = true; log('MASCHINE: I hold', krit0.join(' ')); return send('maschine', ks.map((m) => opening(m.k))); }
  }
  // Schlecken: the card I am shown
  if (A.showing && A.showing.seat === S.seat) {
    const m = S.my[A.showing.position]; if (!m || !m.card) return; // wait until decrypted
    S.shown = A.showing.position;
    const krit = S.chk.rules.kritische || [];
    let choice = krit.includes(m.card) && acts.includes('take') ? 'take' : 'keep';
    // SEAT_SEAL: bluff-take the first card shown after "cut 26", so that the dealer is shown position size-1 and,
    // keeping it, must later seal its share of it to me (T11)
    if (SEAL && A.cutN === 26 && A.showing.position === 25 && acts.includes('take')) choice = 'take';
    return send(choice, []);
  }
  if (SEAL && acts.includes('cut 26')) return send('cut 26', []);
  if (process.env.SEAT_BESSERE && acts.includes('bessere?')) return send('bessere?', []);
  const plays = acts.filter((a) => a.startsWith('play'));
  let others = acts.filter((a) => !a.startsWith('play') && a !== 'maschine' && a !== 'open' && a !== 'take' && a !== 'keep');
  if (plays.length) {
    const lp = legalPlays(v);
    if (!lp.length) { log('play asked but I hold no decrypted card yet; view', JSON.stringify(acts)); if (!others.length) return; }
    else if (!others.length || Math.random() < 0.85) {
      let c = lp[Math.floor(Math.random() * lp.length)];
      if (process.env.SEAT_CHEAT && (!S.cheated || process.env.SEAT_CHEAT === 'all')) { // test: break a following obligation on purpose (T9 item 10)
        const all = myCards(); const bad = all.filter((x) => !lp.some((y) => y.k === x.k));
        if (bad.length) { S.cheated = true; c = bad[0]; log('CHEAT: playing', c.card, 'although the rules want one of', lp.map((x) => x.card).join(' ')); }
      }
      if (PROBE && !S.probedPlay) { S.probedPlay = true; probePlay(c); }
      S.stats.plays++;
      return send(`play ${c.card}`, [opening(c.k)]);
    }
  }
  if (!others.length) return;
  const a = others[Math.floor(Math.random() * others.length)];
  send(a, []);
}
function send(action, openings) {
  S.actionPending = true; S.stats.actions++;
  log(`act: ${action}  (view offers ${(S.lastView.legal_actions || []).join(', ')}; my cards ${myCards().map((c) => c.card + '@' + c.k).join(' ')})`);
  submit('ActionRequest', { action, chain_seq: S.chainSeq, chain_head: S.chainHead, openings }, (ok) => {
    if (!ok) { S.actionPending = false; setTimeout(() => S.lastView && onView(S.lastView), 300); }
  });
}

// ---------- stream ----------
let stream = null, lastEventSeq = 0;
function resubscribe() {
  if (stream) { try { stream.cancel(); } catch (e) {} }
  const req = { token: S.token, from_seq: lastEventSeq, known_chain_seq: S.chainSeq, known_game_id: S.gameId || Buffer.alloc(0) };
  stream = client.Subscribe(req); const me = stream;
  stream.on('data', (u) => {
    if (me !== stream) return;
    try {
      if (u.snapshot) {
        const s = u.snapshot;
        if (Number(s.your_envelope_seq) >= S.mySeq) { S.mySeq = Number(s.your_envelope_seq); S.myHead = s.your_envelope_hash && s.your_envelope_hash.length ? Buffer.from(s.your_envelope_hash) : Buffer.alloc(32); }
        lastEventSeq = Number(s.seq);
        S.catchingUp = S.restarted && !S.caughtUp;
        for (const ce of s.chain || []) onChainEntry(ce);
        if (S.catchingUp) { S.catchingUp = false; S.caughtUp = true; owed(); }
        if (refreshResolve) { const r = refreshResolve; refreshResolve = null; r(); }
        if (s.view) { onView(s.view); maybeReady(s.view); }
      } else if (u.event) {
        const ev = u.event;
        if (Number(ev.seq) !== lastEventSeq + 1) { log('event gap, resubscribe'); resubscribe(); return; }
        lastEventSeq = Number(ev.seq);
        for (const ce of ev.chain || []) onChainEntry(ce);
        if (ev.view) onView(ev.view);
      }
      if (S.matchEnd && S.chk && S.chk.lastCheckpoint && S.chk.cpDone(S.chk.lastCheckpoint) && S.chk.matchEnd) finish();
    } catch (e) { log('stream handler error', e.stack); S.stopped = e.message; finish(); }
  });
  stream.on('error', (e) => { if (me !== stream) return; const d = errDetail(e); log('stream error', e.code, d ? d.reason : e.details); if (S.matchEnd) return finish(); setTimeout(resubscribe, 1000); });
  stream.on('end', () => { if (me !== stream) return; log('stream ended'); if (S.matchEnd) finish(); else setTimeout(resubscribe, 1000); });
}
let readySent = false;
function maybeReady(v) {
  if (readySent || (v.table && v.table.game_id && v.table.game_id.length)) return;
  readySent = true; call('Ready', { token: S.token, ready: true }).then(() => log('Ready sent')).catch((e) => log('Ready:', e.code, (errDetail(e) || {}).reason));
}
let finished = false;
function finish() {
  if (finished) return; finished = true;
  setTimeout(() => {
    if (probeResults.length) log('PROBES:\n  ' + probeResults.join('\n  '));
    log('done', JSON.stringify(S.stats), JSON.stringify(S.chk ? S.chk.stats : {}), 'record', recPath, S.stopped ? 'STOPPED ' + S.stopped : '');
    if (recFd !== null) fs.closeSync(recFd);
    try { stream.cancel(); } catch (e) {}
    client.close(); process.exit(S.stopped ? 2 : 0);
  }, 1500);
}

async function main() {
  const t = await call('GetTable', { protocol_version: 2 });
  log('table', t.table_id, 'players', t.player_count, 'preset', t.preset);
  const stateFile = path.join(outDir, 'join.json');
  const st = fs.existsSync(stateFile) ? JSON.parse(fs.readFileSync(stateFile, 'utf8')) : null;
  S.joinNonce = crypto.randomBytes(32);
  if (st && st.table_id === t.table_id) { S.restarted = true; S.headerNonce = Buffer.from(st.nonce, 'hex'); log('RESTART: taking my seat back at table', t.table_id); }
  else fs.writeFileSync(stateFile, JSON.stringify({ table_id: t.table_id, nonce: S.joinNonce.toString('hex') }));
  const tlsfp = Buffer.from('insecure', 'ascii');
  const proof = sign(myPriv, framed(1, 'join', Buffer.from(t.table_id, 'utf8'), Buffer.from(t.host_public_key), tlsfp, myPub, S.joinNonce));
  const j = await call('Join', { protocol_version: 2, name: 'docs-l2-seat', public_key: myPub, join_nonce: S.joinNonce, key_proof: proof, tls_fingerprint: tlsfp, table_id: t.table_id });
  S.token = j.token; S.seat = j.seat; log('joined seat', j.seat);
  resubscribe();
}
main().catch((e) => { log('main error', e.code, e.details || e.message); process.exit(2); });
setTimeout(() => { log('TIMEOUT'); S.stopped = 'timeout'; finish(); }, Number(process.env.SEAT_TIMEOUT || 900) * 1000);
