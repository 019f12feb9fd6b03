// node stats_cli.js RECORD...: counts of trustless events (obligations, openings, violations, hand ends) over records
import { readWrec, dec } from './wrec.js';
import fs from 'fs';
const files = process.argv.slice(2);
const tot = {};
for (const f of files) {
  for (const e of readWrec(fs.readFileSync(f))) {
    if (e.kind !== 1) continue; const env = dec('Envelope', e.bytes);
    if (env.type === 'ActionAccepted') { const p = dec('ActionAccepted', env.payload); for (const ev of p.events) if (['violation', 'obligation', 'open?', 'opened', 'not-opened', 'maschine', 'bluff-penalty', 'redeal'].includes(ev.kind)) { tot[ev.kind] = (tot[ev.kind] || 0) + 1; if (ev.kind === 'violation') console.log(f.split('/')[2], JSON.stringify(ev.fields)); } if (p.action === 'open') tot.openAction = (tot.openAction||0)+1; }
    if (env.type === 'HandEnd') { const p = dec('HandEnd', env.payload); tot['handend:' + p.reason] = (tot['handend:' + p.reason] || 0) + 1; }
  }
}
console.log(files.length, 'records', JSON.stringify(tot));
