// node sealed_cli.js RECORD...: every SealedShare relayed in the records
import { readWrec, dec } from './wrec.js';
import fs from 'fs';
for (const f of process.argv.slice(2)) {
  let seq = 0;
  for (const e of readWrec(fs.readFileSync(f))) {
    if (e.kind === 1 || e.kind === 2) seq++;
    if (e.kind !== 1) continue;
    const env = dec('Envelope', e.bytes); if (env.type !== 'Relay') continue;
    const ie = dec('Envelope', dec('Relay', env.payload).envelope); if (ie.type !== 'DecryptionShares') continue;
    const q = dec('DecryptionShares', ie.payload);
    if (q.sealed.length) console.log(f.split('/').pop(), 'seq', seq, 'from', ie.sender_seat, 'sealed', q.sealed.map(s => `${s.position}->${s.recipient} (${s.box.length}b)`).join(' '), 'public', q.shares.length);
  }
}
