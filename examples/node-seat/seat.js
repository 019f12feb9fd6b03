// A watten-net seat written from docs/protocol.md and proto/ alone.
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const protobuf = require('protobufjs');

const PROTO_DIR = path.join(__dirname, '..', '..', 'proto');  // the repository's proto/
const PROTO = path.join(PROTO_DIR, 'watten_net/v1/watten.proto');
const addr = process.argv[2] || '127.0.0.1:47150';
const outDir = process.argv[3] || path.join(__dirname, 'out');
fs.mkdirSync(outDir, { recursive: true });

function log(...a) { console.log(new Date().toISOString().slice(11, 23), ...a); }
const STEP_TIMEOUT_FLOOR_MS = 5000;  // the shortest GameHeader.step_timeout_ms this seat signs (0: no limit, signed)
function die(msg) { log('FATAL', msg); process.exitCode = 2; throw new Error(msg); }

// ---------- crypto helpers (§1, §2) ----------
const sha256 = (b) => crypto.createHash('sha256').update(b).digest();
const hmac = (k, m) => crypto.createHmac('sha256', k).update(m).digest();
function u8(x) { if (x < 0 || x > 255) die('u8 range'); return Buffer.from([x]); }
function u32(x) { const b = Buffer.alloc(4); b.writeUInt32BE(x); return b; }
function u64(x) { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(x)); return b; }
function lp(x) { return Buffer.concat([u32(x.length), x]); }
function framed(v, name, ...fields) {
  return Buffer.concat([lp(Buffer.from(`watten/v${v}/${name}`, 'ascii')), ...fields.map((f) => lp(Buffer.from(f)))]);
}
const H = (v, name, ...f) => sha256(framed(v, name, ...f));
const Z32 = Buffer.alloc(32);
function need32(b, what) { if (!b || b.length !== 32) die(`${what} not 32 bytes`); return b; }

// Ed25519 from raw 32-byte seed / public key
function privFromSeed(seed) {
  return crypto.createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8' });
}
function pubFromRaw(raw) {
  return crypto.createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]), format: 'der', type: 'spki' });
}
function rawPub(priv) { return crypto.createPublicKey(priv).export({ format: 'der', type: 'spki' }).subarray(12); }
const sign = (priv, m) => crypto.sign(null, m, priv);
const verify = (pubRaw, m, sig) => { try { return crypto.verify(null, m, pubFromRaw(pubRaw), sig); } catch (e) { return false; } };

// ---------- protobuf ----------
const root = new protobuf.Root().loadSync(PROTO, { keepCase: true });
const T = (n) => root.lookupType('watten_net.v1.' + n);
const dec = (n, b) => T(n).toObject(T(n).decode(b), { longs: Number, bytes: Buffer, defaults: true, arrays: true, oneofs: true });
const enc = (n, o) => Buffer.from(T(n).encode(T(n).fromObject(o)).finish());

// canonical Envelope by hand (§4)
function varint(n) {
  let v = BigInt.asUintN(64, BigInt(n)); const out = [];
  do { let b = Number(v & 0x7fn); v >>= 7n; if (v) b |= 0x80; out.push(b); } while (v);
  return Buffer.from(out);
}
function fieldLD(no, b) { return Buffer.concat([varint((no << 3) | 2), varint(b.length), b]); }
function fieldV(no, n) { return Buffer.concat([varint((no << 3) | 0), varint(n)]); }
function encodeEnvelope(e) {
  const parts = [];
  if (e.game_id.length) parts.push(fieldLD(1, e.game_id));
  if (e.seq) parts.push(fieldV(2, e.seq));
  if (e.prev_hash.length) parts.push(fieldLD(3, e.prev_hash));
  if (e.sender_seat) parts.push(fieldV(4, e.sender_seat));
  if (e.type) parts.push(fieldLD(5, Buffer.from(e.type, 'ascii')));
  if (e.payload.length) parts.push(fieldLD(6, e.payload));
  if (e.signature.length) parts.push(fieldLD(10, e.signature));
  return Buffer.concat(parts);
}
function envSigningBytes(e, senderSigned) {
  return framed(1, 'envelope', e.game_id, u64(e.seq), e.prev_hash, u8(senderSigned), Buffer.from(e.type, 'ascii'), e.payload);
}

// ---------- record (§10) ----------
let recFd = null, recPath = null;
const pendingRec = [];
function recOpen(name, meta) {
  recPath = path.join(outDir, name);
  recFd = fs.openSync(recPath, 'w');
  fs.writeSync(recFd, Buffer.from('WATTEN-RECORD/1\n', 'ascii'));
  recWrite(0, Buffer.from(JSON.stringify(meta), 'utf8'));
  for (const [k, b] of pendingRec.splice(0)) recWrite(k, b);
  log('record', recPath);
}
function recWrite(kind, bytes) {
  if (recFd === null) { pendingRec.push([kind, bytes]); return; }
  const h = Buffer.alloc(5); h[0] = kind; h.writeUInt32BE(bytes.length, 1);
  fs.writeSync(recFd, Buffer.concat([h, bytes])); fs.fsyncSync(recFd);
}

// ---------- identity ----------
const keyFile = path.join(outDir, 'identity.key');
if (!fs.existsSync(keyFile)) fs.writeFileSync(keyFile, crypto.randomBytes(32), { mode: 0o600 });
const mySeed = fs.readFileSync(keyFile);
const myPriv = privFromSeed(mySeed);
const myPub = rawPub(myPriv);

// ---------- gRPC ----------
const pkgDef = protoLoader.loadSync(PROTO, { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true, includeDirs: [PROTO_DIR] });
const api = grpc.loadPackageDefinition(pkgDef).watten_net.v1;
let client = null; let tlsFp = null;
async function connect() {
  let creds = grpc.credentials.createInsecure();
  if (process.env.SEAT_TLS) {
    const tls = require('tls');
    const [host, port] = addr.split(':');
    const der = await new Promise((res, rej) => {
      const sock = tls.connect({ host, port: Number(port), rejectUnauthorized: false, ALPNProtocols: ['h2'], servername: undefined }, () => {
        const c = sock.getPeerCertificate(true); sock.end(); res(c.raw);
      });
      sock.on('error', rej);
    });
    tlsFp = sha256(der);
    const pinFile = path.join(outDir, 'pinned-' + host + '-' + port);
    if (fs.existsSync(pinFile) && !fs.readFileSync(pinFile).equals(tlsFp)) die('host certificate changed');
    fs.writeFileSync(pinFile, tlsFp);
    const pem = '-----BEGIN CERTIFICATE-----\n' + der.toString('base64').match(/.{1,64}/g).join('\n') + '\n-----END CERTIFICATE-----\n';
    creds = grpc.credentials.createSsl(Buffer.from(pem), null, null, {
      checkServerIdentity: (h, cert) => (sha256(cert.raw).equals(tlsFp) ? undefined : new Error('certificate differs from the pinned one')),
    });
    log('TLS pinned', tlsFp.toString('hex').slice(0, 16));
  }
  client = new api.WattenTable(addr, creds, { 'grpc.initial_reconnect_backoff_ms': 250, 'grpc.max_reconnect_backoff_ms': 1000 });
}
const call = (m, req) => new Promise((res, rej) => client[m](req, (err, r) => (err ? rej(err) : res(r))));

// google.rpc.Status in grpc-status-details-bin
const statusRoot = protobuf.Root.fromJSON({ nested: { Any: { fields: { type_url: { type: 'string', id: 1 }, value: { type: 'bytes', id: 2 } } },
  Status: { fields: { code: { type: 'int32', id: 1 }, message: { type: 'string', id: 2 }, details: { rule: 'repeated', type: 'Any', id: 3 } } } } });
function errDetail(err) {
  try {
    const b = err.metadata && err.metadata.get('grpc-status-details-bin')[0];
    if (!b) return null;
    const st = statusRoot.lookupType('Status').decode(b);
    for (const d of st.details) if (d.type_url.endsWith('ErrorDetail')) return dec('ErrorDetail', d.value);
  } catch (e) { log('errDetail parse', e.message); }
  return null;
}

// ---------- game state ----------
const S = {
  token: null, seat: null, tableId: null, hostPub: null,
  chainSeq: 0, chainHead: Z32, chainHashes: { 0: Z32 },
  header: null, headerHash: null, gameId: null, n: 0, roster: [],
  headerSigs: new Set(), ks: null, Hks: null, Kcommit: [], ksSigs: new Set(), reveals: {}, k: null,
  sentCommit: false, sentKsSig: false, sentReveal: false,
  mySeq: 0, myHead: Z32, queue: Promise.resolve(), busy: false,
  attempts: {}, cur: null, played: new Set(), withheld: {}, deckSize: 0,
  kH: null, actionPending: false, lastView: null, ended: false, standIn: false,
  checkpointsSigned: new Set(), stats: { actions: 0, refusals: 0, checks: 0 },
};
const myKeyFile = () => path.join(outDir, `gamekey-${S.gameId.toString('hex').slice(0, 16)}.key`);

function submit(type, payloadObj, onDone) {
  const payload = enc(type, payloadObj);
  S.queue = S.queue.then(async () => {
    for (let tries = 0; tries < 3; tries++) {
      const e = { game_id: S.gameId, seq: S.mySeq + 1, prev_hash: S.myHead, sender_seat: S.seat, type, payload, signature: Buffer.alloc(0) };
      e.signature = sign(myPriv, envSigningBytes(e, S.seat));
      const bytes = encodeEnvelope(e);
      try {
        const r = await call('SubmitEnvelope', { token: S.token, envelope: bytes });
        S.mySeq = e.seq; S.myHead = sha256(bytes); S.lastSent = bytes;
        if (Buffer.compare(Buffer.from(r.envelope_hash), S.myHead) !== 0) log('WARN host envelope_hash differs');
        recWrite(3, bytes);
        log(`sent ${type} seq=${e.seq} -> chain_seq=${r.chain_seq}`);
        if (onDone) onDone(true);
        return;
      } catch (err) {
        const d = errDetail(err);
        log(`refused ${type}: ${err.code} ${d ? d.reason + ' ' + d.message : err.details}`);
        S.stats.refusals++;
        if (d && d.receipt && d.receipt.signature && d.receipt.signature.length) {
          checkReceipt(d.receipt, bytes);
          recWrite(4, enc('RefusalEvidence', { envelope: bytes, receipt: d.receipt }));
        }
        if (d && d.reason === 'stale-envelope-seq') { await refreshSeq(); continue; }
        if (onDone) onDone(false, d);
        return;
      }
    }
  }).catch((e) => log('submit error', e));
}
function checkReceipt(r, bytes) {
  const m = framed(2, 'refusal-receipt', r.game_id, r.envelope_hash, Buffer.from(r.reason, 'ascii'), u64(r.chain_seq), r.chain_head);
  const ok = verify(S.hostPub, m, r.signature) && sha256(bytes).equals(Buffer.from(r.envelope_hash));
  log('receipt', r.reason, ok ? 'signature ok' : 'BAD RECEIPT');
}
let refreshResolve = null;
function refreshSeq() { return new Promise((res) => { refreshResolve = res; resubscribe(); }); }

// ---------- chain processing ----------
function onChainEntry(ce) {
  const seq = Number(ce.chain_seq);
  if (seq <= S.chainSeq) return; // already have it
  if (seq === 1) newGame();
  if (seq !== S.chainSeq + 1) die(`chain gap: have ${S.chainSeq}, got ${seq}`);
  if (ce.withheld) {
    const w = ce.withheld;
    const stubBytes = enc('Withheld', w);
    recWrite(2, stubBytes);
    S.chainSeq = seq; S.chainHead = Buffer.from(w.envelope_hash); S.chainHashes[seq] = S.chainHead;
    S.withheld[S.chainHead.toString('hex')] = { seq, type: w.type };
    return;
  }
  const bytes = Buffer.from(ce.envelope);
  const env = dec('Envelope', bytes);
  if (!encodeEnvelope(env).equals(bytes)) log('WARN host envelope not canonical by my encoder');
  if (Number(env.seq) !== seq) die(`envelope seq ${env.seq} != chain seq ${seq}`);
  if (!Buffer.from(env.prev_hash).equals(S.chainHead)) die(`chain-link broken at ${seq}`);
  if (env.sender_seat !== -1) die(`host envelope with sender ${env.sender_seat}`);
  if (seq === 1) {
    if (env.type !== 'GameHeader') die('first entry not GameHeader');
    const hdr = dec('GameHeader', env.payload);
    S.hostPub = Buffer.from(hdr.host_public_key);
  }
  if (!verify(S.hostPub, envSigningBytes(env, 255), env.signature)) die(`bad host signature at ${seq}`);
  if (S.gameId && !Buffer.from(env.game_id).equals(S.gameId)) die('game id differs');
  S.stats.checks++;
  recWrite(1, bytes);
  S.chainSeq = seq; S.chainHead = sha256(bytes); S.chainHashes[seq] = S.chainHead;
  handleHost(env, seq, bytes);
  const drops = (process.env.SEAT_DROP || '').split(',').filter(Boolean).map(Number);
  const di = drops.indexOf(seq);
  if (di >= 0) {
    const full = di % 2 === 1;
    log(`TEST: dropping the stream at chain seq ${seq}, ${full ? 'full snapshot (from_seq 0)' : 'resume'}`);
    setImmediate(() => { if (full) lastEventSeq = 0; resubscribe(); });
  }
}

function newGame() {
  Object.assign(S, { chainSeq: 0, chainHead: Z32, chainHashes: { 0: Z32 }, header: null, headerSigs: new Set(), ks: null, Hks: null,
    Kcommit: [], ksSigs: new Set(), reveals: {}, k: null, sentCommit: false, sentKsSig: false, sentReveal: false,
    attempts: {}, cur: null, played: new Set(), withheld: {}, kH: null, checkpointsSigned: new Set() });
}

function parseSeatEnv(bytes, expectType) {
  const e = dec('Envelope', bytes);
  if (!encodeEnvelope(e).equals(Buffer.from(bytes))) log('WARN seat envelope not canonical');
  if (expectType && e.type !== expectType) die(`expected ${expectType}, got ${e.type}`);
  const who = e.sender_seat;
  const r = S.roster[who];
  if (!r) die(`envelope from unknown seat ${who}`);
  if (!verify(Buffer.from(r.public_key), envSigningBytes(e, who), e.signature)) die(`bad seat ${who} signature on ${e.type}`);
  if (!Buffer.from(e.game_id).equals(S.gameId)) die('seat envelope game id');
  return { e, p: dec(e.type, e.payload), who };
}

const CANON = {};
function canonicalDeck(size) {
  const ranks = size === 36 ? ['6', '7', '8', '9', '10', 'U', 'O', 'K', 'A'] : ['7', '8', '9', '10', 'U', 'O', 'K', 'A'];
  const d = [];
  for (const s of ['E', 'L', 'H', 'S']) { if (size === 33 && s === 'S') d.push('S6'); for (const r of ranks) d.push(s + r); }
  return d;
}
function cS(h, a) { return hmac(S.kH, framed(2, 'host-hand-seed', S.gameId, u32(h), u32(a))); }
function deckKey(h, a, Sha) {
  const cs = S.roster.map((_, i) => hmac(S.reveals[i], framed(2, 'seat-seed', S.gameId, u32(h), u32(a))));
  return Buffer.from(crypto.hkdfSync('sha256', Buffer.concat([Sha, ...cs]), S.Hks, framed(2, 'deck-key', S.gameId, u32(h), u32(a)), 32));
}
function deckFor(dk, size) {
  const tags = []; for (let j = 0; j < size; j++) tags.push(hmac(dk, Buffer.concat([Buffer.from('watten/v1/card-tag', 'ascii'), u8(j)])));
  const order = [...Array(size).keys()].sort((x, y) => Buffer.compare(tags[x], tags[y]) || x - y);
  const canon = canonicalDeck(size);
  return order.map((j) => canon[j]);
}
function Dk(h, a, k, card, salt) { return H(2, 'card-commit', S.gameId, u32(h), u32(a), u8(k), Buffer.from(card, 'ascii'), salt); }
function checkOpening(h, a, o, why) {
  const att = S.attempts[`${h}/${a}`];
  if (!att || !att.D) { log('WARN opening before DeckSealed', why); return; }
  const d = Dk(h, a, o.position, o.card, Buffer.from(o.salt));
  if (!d.equals(att.D[o.position])) die(`opening mismatch ${why} pos ${o.position} ${o.card}`);
  S.stats.checks++;
}

function handleHost(env, seq, bytes) {
  const p = dec(env.type, env.payload);
  switch (env.type) {
    case 'GameHeader': {
      S.header = p; S.headerHash = sha256(Buffer.from(env.payload)); S.gameId = Buffer.from(p.game_id);
      if (!Buffer.from(env.game_id).equals(S.gameId)) die('header game id != envelope game id');
      if (p.protocol_version !== 2) die('protocol_version ' + p.protocol_version);
      // docs/protocol.md "The step timeout": 0 = no limit; above 0 it must be at least this seat's floor (5 s), or the
      // host could call this seat away before it can answer. Refused before anything is signed.
      if (p.step_timeout_ms > 0 && p.step_timeout_ms < STEP_TIMEOUT_FLOOR_MS) die(`short-step-timeout: the header's step timeout ${p.step_timeout_ms} ms is below ${STEP_TIMEOUT_FLOOR_MS} ms`);
      S.roster = p.roster; S.n = p.roster.length;
      const mine = p.roster[S.seat];
      if (!mine || !Buffer.from(mine.public_key).equals(myPub)) die('my key not at my seat');
      if (S.tableHostPub && !S.tableHostPub.equals(S.hostPub)) die('host key differs from TableInfo');
      const gid = H(1, 'game-id', p.host_nonce, ...p.join_nonces);
      if (!gid.equals(S.gameId)) die('game id does not follow from nonces');
      if (!Buffer.from(p.join_nonces[S.seat]).equals(S.joinNonce)) die('my join nonce not at my seat');
      if (tlsFp ? !Buffer.from(p.host_tls_fingerprint).equals(tlsFp) : p.host_tls_fingerprint.length) die('header TLS fingerprint is not my connection\'s');
      const fp = H(1, 'fingerprint', bytes).toString('hex').slice(0, 16).match(/.{4}/g).join(' ');
      log('GameHeader game', S.gameId.toString('hex').slice(0, 12), 'fingerprint', fp, 'deck', p.deck_version, 'rules', p.rules_json);
      S.deckSize = JSON.parse(p.rules_json).deck_size || null;
      recOpen(`watten-${fp.replace(/ /g, '-')}-seat${S.seat}.wrec`, { created: new Date().toISOString(), written_by: 'docs-seat (node)', seat: S.seat });
      const signed = path.join(outDir, 'signed-headers.txt');
      const prior = fs.existsSync(signed) ? fs.readFileSync(signed, 'utf8') : '';
      if (!prior.includes(S.gameId.toString('hex'))) {
        fs.appendFileSync(signed, S.gameId.toString('hex') + '\n');
        submit('HeaderSignature', { seat: S.seat, header_hash: S.headerHash });
      }
      break;
    }
    case 'Relay': {
      const { e, p: q, who } = parseSeatEnv(p.envelope);
      if (who !== p.seat) die('relay seat mismatch');
      onSeatMessage(e.type, q, who, seq);
      break;
    }
    case 'KeySet': {
      if (p.commits.length !== S.n) die('KeySet size');
      const Ks = [];
      p.commits.forEach((c, i) => {
        if (c.seat !== i) die('KeySet order');
        const { p: kc, who } = parseSeatEnv(c.envelope, 'KeyCommit');
        if (who !== i || kc.seat !== i) die('KeySet entry seat');
        if (!Buffer.from(kc.header_hash).equals(S.headerHash)) die('KeyCommit header hash');
        Ks.push(need32(Buffer.from(kc.commitment), 'commitment'));
      });
      if (!Ks[S.seat].equals(S.myK)) die('my commitment not in KeySet');
      S.Kcommit = Ks;
      S.Hks = H(2, 'key-set', S.gameId, S.headerHash, ...Ks);
      submit('KeySetSignature', { seat: S.seat, key_set_hash: S.Hks });
      break;
    }
    case 'HandOpen': {
      S.cur = { h: p.hand, a: p.attempt, dealer: p.dealer };
      S.attempts[`${p.hand}/${p.attempt}`] = { h: p.hand, a: p.attempt, dealer: p.dealer, D: null, played: new Set() };
      log(`HandOpen h=${p.hand} a=${p.attempt} dealer=${p.dealer}`);
      break;
    }
    case 'DeckSealed': {
      const att = S.attempts[`${p.hand}/${p.attempt}`];
      att.D = p.card_commitments.map((x) => Buffer.from(x)); att.sealedHash = sha256(bytes);
      S.deckSize = att.D.length;
      if (!S.standIn) submit('DeckSealedSignature', { hand: p.hand, attempt: p.attempt, seat: S.seat, deck_sealed_hash: att.sealedHash });
      break;
    }
    case 'CardDelivery': {
      for (const o of p.cards) checkOpening(p.hand, p.attempt, o, 'delivery');
      checkDelivery(S.attempts[`${p.hand}/${p.attempt}`], p);
      log(`cards ${p.cards.map((c) => c.card).join(' ')} (packet ${p.packet})`);
      break;
    }
    case 'PrivateEvent': {
      for (const ev of p.events) {
        if (ev.kind === 'see') {
          const o = { position: JSON.parse(ev.fields.position), card: JSON.parse(ev.fields.card), salt: Buffer.from(JSON.parse(ev.fields.salt), 'hex') };
          checkOpening(p.hand, p.attempt, o, 'see');
        }
      }
      break;
    }
    case 'ActionAccepted': {
      if (p.actor === '') {
        const { p: ar, who } = parseSeatEnv(p.action_envelope, 'ActionRequest');
        if (who !== p.seat || ar.action !== p.action) die('ActionAccepted does not match embedded request');
        if (!sha256(Buffer.from(p.action_envelope)).equals(Buffer.from(p.action_envelope_hash))) die('action envelope hash');
      }
      const att = S.attempts[`${p.hand}/${p.attempt}`];
      onAction(att, p);
      for (const o of p.openings) {
        checkOpening(p.hand, p.attempt, o, 'play');
        if (p.action.startsWith('play ')) {
          if (att.played.has(o.position)) die('position played twice');
          att.played.add(o.position);
          checkPlayPosition(att, p.seat, o.position);
        }
      }
      break;
    }
    case 'StandIn': if (p.seat === S.seat) { S.standIn = p.active; log('StandIn for me:', p.active); } break;
    case 'HandEnd': log(`HandEnd h=${p.hand} side ${p.winner_side} pts ${p.points} reason ${p.reason} scores ${p.scores}`); break;
    case 'HostSeedReveal': {
      const att = S.attempts[`${p.hand}/${p.attempt}`]; att.S = Buffer.from(p.seed); checkAttempt(p.hand, p.attempt, att.S);
      break;
    }
    case 'Checkpoint': {
      const mine = S.chainHashes[Number(p.chain_seq)];
      if (Number(p.chain_seq) !== seq - 1 || !mine || !mine.equals(Buffer.from(p.chain_head))) die('FORK: checkpoint head differs from my copy');
      if (!S.standIn) submit('CheckpointSignature', { hand: p.hand, seat: S.seat, chain_seq: p.chain_seq, chain_head: mine });
      break;
    }
    case 'MatchEnd': log(`MatchEnd scores ${p.scores} winner ${p.winner_side} reason ${p.reason}`); S.matchEnd = p; break;
    case 'HostKeyReveal': {
      S.kH = need32(Buffer.from(p.key), 'k_H');
      if (!H(2, 'host-game-key', S.gameId, S.kH).equals(Buffer.from(S.header.host_key_commitment))) die('host-key-mismatch');
      let fd = null;
      for (const key of Object.keys(S.attempts)) {
        const [h, a] = key.split('/').map(Number); const att = S.attempts[key];
        const Sha = cS(h, a);
        if (att.S && !att.S.equals(Sha)) die('seed-mismatch');
        checkAttempt(h, a, Sha);
      }
      fd = Number(hmac(deckKey(0, 0, cS(0, 0)), framed(2, 'first-dealer', S.gameId)).readUInt32BE(0)) % S.n;
      if (S.attempts['0/0'] && fd !== S.attempts['0/0'].dealer) die(`first dealer ${fd} != ${S.attempts['0/0'].dealer}`);
      log(`HostKeyReveal ok; ${Object.keys(S.attempts).length} attempts recomputed; first dealer ${fd} ok`);
      break;
    }
    case 'Disclosure': {
      for (const b of p.envelopes) {
        const h = sha256(Buffer.from(b)).toString('hex');
        if (!S.withheld[h]) { log('WARN disclosed envelope matches no stub of mine (maybe my own)'); continue; }
        const e = dec('Envelope', b);
        if (!verify(S.hostPub, envSigningBytes(e, 255), e.signature)) die('disclosed envelope bad signature');
        delete S.withheld[h]; S.stats.checks++;
      }
      log(`Disclosure: ${p.envelopes.length} envelopes; ${Object.keys(S.withheld).length} stubs still undisclosed`);
      break;
    }
    case 'AttemptAborted': log('AttemptAborted', p); break;
    default: log('host envelope', env.type);
  }
}

function checkAttempt(h, a, Sha) {
  const att = S.attempts[`${h}/${a}`];
  if (!att.D) return;
  const dk = deckKey(h, a, Sha);
  const deck = deckFor(dk, att.D.length);
  deck.forEach((card, k) => {
    const salt = hmac(Sha, framed(2, 'card-salt', S.gameId, u32(h), u32(a), u8(k)));
    if (!Dk(h, a, k, card, salt).equals(att.D[k])) die(`deal-mismatch h${h} a${a} k${k}`);
  });
  S.stats.checks++;
}

function onSeatMessage(type, q, who, seq) {
  switch (type) {
    case 'HeaderSignature':
      if (!Buffer.from(q.header_hash).equals(S.headerHash)) die('HeaderSignature over another header');
      S.headerSigs.add(who);
      if (S.headerSigs.size === S.n && !S.sentCommit) {
        S.sentCommit = true;
        S.k = crypto.randomBytes(32);
        fs.writeFileSync(myKeyFile(), S.k, { mode: 0o600 });
        S.myK = H(2, 'seat-game-key', S.gameId, u8(S.seat), S.headerHash, S.k);
        submit('KeyCommit', { seat: S.seat, header_hash: S.headerHash, commitment: S.myK });
      }
      break;
    case 'KeySetSignature':
      if (!Buffer.from(q.key_set_hash).equals(S.Hks)) die('KeySetSignature over another Hks');
      S.ksSigs.add(who); maybeReveal(); break;
    case 'KeyReveal': {
      const K = H(2, 'seat-game-key', S.gameId, u8(who), S.headerHash, Buffer.from(q.key));
      if (!K.equals(S.Kcommit[who])) die(`key of seat ${who} does not open K_i`);
      S.reveals[who] = Buffer.from(q.key); log(`KeyReveal seat ${who} ok`); maybeReveal(); break;
    }
    case 'DeckSealedSignature': case 'CheckpointSignature': break;
    default: log('relayed', type, 'from', who);
  }
}
function maybeReveal() {
  if (S.sentReveal || S.ksSigs.size !== S.n) return;
  for (const r of S.roster) if (r.host_run && r.seat !== S.seat && !S.reveals[r.seat]) return;
  S.sentReveal = true;
  submit('KeyReveal', { seat: S.seat, key: S.k, chain_seq: S.chainSeq, chain_head: S.chainHead }, (ok) => { if (ok && process.env.SEAT_PROBE) probes(); });
}
async function probes() {
  const show = (what, err) => { const d = errDetail(err); log(`PROBE ${what}: code ${err.code} reason ${d && d.reason} receipt ${d && d.receipt && d.receipt.signature && d.receipt.signature.length ? 'yes' : 'no'}`); return d; };
  // (a) resubmit the identical bytes of the accepted KeyReveal
  await (S.queue = S.queue.then(async () => {
    const last = S.lastSent;
    try { const r = await call('SubmitEnvelope', { token: S.token, envelope: last }); log(`PROBE resubmit identical: ok chain_seq ${r.chain_seq} hash ${Buffer.from(r.envelope_hash).equals(sha256(last))}`); }
    catch (e) { show('resubmit identical', e); }
    // (b) stale seq: a CheckpointSignature-ish payload on seq+5
    const payload = enc('ActionRequest', { action: 'play XX', chain_seq: S.chainSeq, chain_head: S.chainHead });
    const mk = (seq, prev) => { const e = { game_id: S.gameId, seq, prev_hash: prev, sender_seat: S.seat, type: 'ActionRequest', payload, signature: Buffer.alloc(0) }; e.signature = sign(myPriv, envSigningBytes(e, S.seat)); return e; };
    const st = encodeEnvelope(mk(S.mySeq + 5, S.myHead));
    try { await call('SubmitEnvelope', { token: S.token, envelope: st }); log('PROBE stale seq: ACCEPTED?!'); }
    catch (e) { const d = show('stale seq', e); if (d && d.receipt && d.receipt.signature.length) { checkReceipt(d.receipt, st); if (process.env.SEAT_PROBE === 'rec') recWrite(4, enc('RefusalEvidence', { envelope: st, receipt: d.receipt })); } }
    // (c) non-canonical: type before seq (field order broken)
    const e = mk(S.mySeq + 1, S.myHead);
    const nc = Buffer.concat([fieldLD(1, e.game_id), fieldLD(5, Buffer.from(e.type)), fieldV(2, e.seq), fieldLD(3, e.prev_hash), fieldV(4, e.sender_seat), fieldLD(6, e.payload), fieldLD(10, e.signature)]);
    try { await call('SubmitEnvelope', { token: S.token, envelope: nc }); log('PROBE non-canonical: ACCEPTED?!'); }
    catch (err) { const d = show('non-canonical', err); if (d && d.receipt && d.receipt.signature.length) { log('PROBE non-canonical receipt hash = sha256(sent bytes)?', Buffer.from(d.receipt.envelope_hash).equals(sha256(nc))); checkReceipt(d.receipt, nc); } }
    // (d) a bad card, canonical, right seq: refused by the rules with a receipt
    const bc = encodeEnvelope(e);
    try { await call('SubmitEnvelope', { token: S.token, envelope: bc }); log('PROBE bad card: ACCEPTED?!'); }
    catch (err) { const d = show('bad card "play XX" (out of turn, before any hand)', err); if (d && d.receipt && d.receipt.signature.length) { checkReceipt(d.receipt, bc); recWrite(4, enc('RefusalEvidence', { envelope: bc, receipt: d.receipt })); } }
  }));
}

// ---------- deal map (rules.md 5 items 3-4) ----------
function onAction(att, p) {
  const a = p.action;
  if (a.startsWith('cut ')) {
    const N = Number(a.slice(4)); att.cutN = N; att.cutter = p.seat; att.takes = []; att.dealerPhase = false;
    if (p.actor === 'key') {
      const size = att.D.length;
      const mac = hmac(S.reveals[p.seat], framed(2, 'cut', S.gameId, u32(att.h), u32(att.a)));
      const want = 4 + (mac.readUInt32BE(0) % (size - 7));
      if (want !== N) die(`cut ${N} != key cut ${want}`); S.stats.checks++; S.stats.cuts = (S.stats.cuts || 0) + 1;
    } else log('WARN cut not by key: actor', JSON.stringify(p.actor));
  } else if (a === 'take' || a === 'keep') {
    att.takes.push({ seat: p.seat, take: a === 'take' });
  } else if (a.startsWith('bessere yes')) { att.besserePlus = true; }
}
function dealMap(att) {
  // taken positions: cutter from the bottom of the lifted packet (N-1, N-2, ...) while taking; then, only if the
  // cutter took, the dealer from the bottom of the rest (size-1, size-2, ...)
  const size = att.D.length, N = att.cutN; const taken = {}; const takenSet = new Set();
  let cpos = N - 1, dpos = size - 1;
  for (const t of att.takes) {
    if (t.seat === att.cutter) { if (t.take) { (taken[t.seat] ||= []).push(cpos); takenSet.add(cpos); } cpos--; }
    else { if (t.take) { (taken[t.seat] ||= []).push(dpos); takenSet.add(dpos); } dpos--; }
  }
  const joined = [];
  for (let k = N; k < size; k++) if (!takenSet.has(k)) joined.push(k);
  for (let k = 0; k < N; k++) if (!takenSet.has(k)) joined.push(k);
  const rules = JSON.parse(S.header.rules_json); const hs = rules.hand_size || 5;
  const packets = hs === 3 ? [2, 1] : [3, 2];
  const n = S.n, fh = (att.dealer + 1) % n; const map = { 1: {}, 2: {} }; let i = 0;
  const owed = {}; for (let s = 0; s < n; s++) owed[s] = (taken[s] || []).length;
  packets.forEach((cnt, pi) => {
    for (let r = 0; r < n; r++) {
      const s = (fh + r) % n; let c = cnt;
      while (owed[s] > 0 && c > 0) { owed[s]--; c--; }
      map[pi + 1][s] = joined.slice(i, i + c); i += c;
    }
  });
  return { map, taken };
}
function checkDelivery(att, p) {
  if (p.packet === 0 || att.besserePlus || att.cutN === undefined) return;
  if (p.packet === 1 && att.takes.some((t) => t.take)) { S.stats.takeDeals = (S.stats.takeDeals || 0) + 1; if (att.takes.some((t) => t.take && t.seat !== att.cutter)) S.stats.dealerTakes = (S.stats.dealerTakes || 0) + 1; }
  const { map } = dealMap(att);
  const want = map[p.packet][p.seat].join(','), got = p.cards.map((c) => c.position).join(',');
  if (want !== got) { log(`DEALMAP MISMATCH packet ${p.packet}: expected ${want}, got ${got}`); S.stats.dealmapBad = (S.stats.dealmapBad || 0) + 1; }
  else S.stats.dealmapOk = (S.stats.dealmapOk || 0) + 1;
}
function checkPlayPosition(att, seat, pos) {
  if (att.besserePlus || att.cutN === undefined) return;
  const { map, taken } = dealMap(att);
  const mine = [...(map[1][seat] || []), ...(map[2][seat] || []), ...(taken[seat] || [])];
  if (!mine.includes(pos)) { log(`DEALMAP: seat ${seat} played position ${pos}, not in its deal ${mine}`); S.stats.playmapBad = (S.stats.playmapBad || 0) + 1; }
  else S.stats.playmapOk = (S.stats.playmapOk || 0) + 1;
}

// ---------- actions ----------
function onView(v) {
  S.lastView = v;
  if (S.actionPending || S.standIn || !v.legal_actions || !v.legal_actions.length) return;
  if (Number(v.chain_seq) !== S.chainSeq) { log(`view chain_seq ${v.chain_seq} != mine ${S.chainSeq}; waiting`); return; }
  const acts = v.legal_actions;
  if (process.env.SEAT_PROBE && !S.probedPlay && acts.some((x) => x.startsWith('play '))) {
    S.probedPlay = true;
    for (const bad of ['play XX', 'dance', 'play', 'signal foo']) submit('ActionRequest', { action: bad, chain_seq: S.chainSeq, chain_head: S.chainHead }, (ok, d) => log(`PROBE "${bad}" in play: ${ok ? 'ACCEPTED?!' : d && d.reason}`));
  }
  const act = acts[Math.floor(Math.random() * acts.length)];
  let cs = S.chainSeq, ch = S.chainHead;
  if (process.env.SEAT_PROBE_HEAD && S.stats.actions % 7 === 3) {
    if (S.stats.actions % 14 === 3) { cs = S.chainSeq - 3; ch = S.chainHashes[cs]; log('PROBE: naming an older head', cs); }
    else { ch = crypto.randomBytes(32); log('PROBE: naming a wrong head'); }
  }
  // Decided now: by the time the answer comes the chain has moved on, so every action would look like a probe.
  const probed = cs !== S.chainSeq || ch !== S.chainHead;
  S.actionPending = true; S.actedAt = S.chainSeq; S.stats.actions++;
  log(`act: ${act}  (of ${acts.join(', ')})`);
  submit('ActionRequest', { action: act, chain_seq: cs, chain_head: ch }, (ok, d) => {
    if (probed) log(`PROBE result: ${ok ? 'accepted' : d && d.reason}`);
    S.actionPending = false;
    if (!ok && S.lastView) setTimeout(() => onView(S.lastView), 200);
    // An Event carries a view only when it changed (protocol.md §11 step 3): one that came while this action was in
    // flight may be the seat's next turn, and no other view follows it.
    else if (ok && S.lastView && Number(S.lastView.chain_seq) > S.actedAt) onView(S.lastView);
  });
}

// ---------- stream ----------
let stream = null, lastEventSeq = 0;
function resubscribe() {
  if (stream) { try { stream.cancel(); } catch (e) {} }
  const req = { token: S.token, from_seq: lastEventSeq, known_chain_seq: S.chainSeq, known_game_id: S.gameId || Buffer.alloc(0) };
  stream = client.Subscribe(req);
  const me = stream;
  stream.on('data', (u) => {
    if (me !== stream) return;
    try {
      if (u.snapshot) {
        const s = u.snapshot;
        if (Number(s.your_envelope_seq) >= S.mySeq) { // an answer still in flight may already have moved us further
          S.mySeq = Number(s.your_envelope_seq); S.myHead = s.your_envelope_hash && s.your_envelope_hash.length ? Buffer.from(s.your_envelope_hash) : Z32;
        }
        lastEventSeq = Number(s.seq);
        for (const ce of s.chain || []) onChainEntry(ce);
        if (refreshResolve) { const r = refreshResolve; refreshResolve = null; r(); }
        if (s.view) { onView(s.view); maybeReady(s.view); }
        log(`snapshot seq=${s.seq} resumed=${s.resumed} chain=${(s.chain || []).length} my_seq=${S.mySeq}`);
      } else if (u.event) {
        const ev = u.event;
        if (Number(ev.seq) !== lastEventSeq + 1) { log('event gap, resubscribe'); resubscribe(); return; }
        lastEventSeq = Number(ev.seq);
        for (const ce of ev.chain || []) onChainEntry(ce);
        if (ev.view) onView(ev.view);
      }
    } catch (e) { log('stream handler error', e.stack); S.fatal = e.message; finish(); }
  });
  stream.on('error', (e) => {
    if (me !== stream) return;
    const d = errDetail(e);
    log('stream error', e.code, d ? d.reason : e.details);
    if (S.matchEnd && S.kH) return finish();
    setTimeout(resubscribe, 1000);
  });
  stream.on('end', () => { if (me !== stream) return; log('stream ended'); if (S.matchEnd) finish(); else setTimeout(resubscribe, 1000); });
}
let readySent = false;
function maybeReady(v) {
  if (readySent || (v.table && v.table.game_id && v.table.game_id.length)) return;
  readySent = true;
  call('Ready', { token: S.token, ready: true }).then(() => log('Ready sent')).catch((e) => log('Ready:', e.code, (errDetail(e) || {}).reason));
}
let finished = false;
function finish() {
  if (finished) return; finished = true;
  setTimeout(() => {
    log('done', JSON.stringify(S.stats), 'record', recPath, S.fatal ? 'FATAL ' + S.fatal : '');
    if (recFd !== null) fs.closeSync(recFd);
    if (stream) try { stream.cancel(); } catch (e) {}
    client.close();
    process.exit(S.fatal ? 2 : 0);
  }, 1500);
}

async function main() {
  await connect();
  const t = await call('GetTable', { protocol_version: 2 });
  log('table', t.table_id, 'protocol_version', t.protocol_version, 'phase', t.phase, 'players', t.player_count, 'preset', t.preset);
  S.tableId = t.table_id; S.tableHostPub = Buffer.from(t.host_public_key);
  S.joinNonce = crypto.randomBytes(32);
  const tlsfp = tlsFp || Buffer.from('insecure', 'ascii');
  const proof = sign(myPriv, framed(1, 'join', Buffer.from(t.table_id, 'utf8'), S.tableHostPub, tlsfp, myPub, S.joinNonce));
  const j = await call('Join', { protocol_version: 2, name: 'docs-seat', public_key: myPub, join_nonce: S.joinNonce, key_proof: proof, tls_fingerprint: tlsfp, table_id: t.table_id });
  S.token = j.token; S.seat = j.seat;
  log('joined seat', j.seat);
  resubscribe();
}
main().catch((e) => { log('main error', e.code, e.details || e.message, JSON.stringify(errDetail(e))); process.exit(2); });
setTimeout(() => { log('TIMEOUT'); S.fatal = 'timeout'; finish(); }, Number(process.env.SEAT_TIMEOUT || 600) * 1000);
