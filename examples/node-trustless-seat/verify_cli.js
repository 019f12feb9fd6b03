// node verify_cli.js RECORD...: this folder's Level 2 checker on .wrec files
import fs from 'node:fs';
import { checkRecord } from './verify.js';
for (const f of process.argv.slice(2)) { const r = checkRecord(fs.readFileSync(f)); console.log(`docs-l2 checker: ${f}: ${r.verdict}${r.reason ? ' ' + r.reason + ' at ' + r.envelope + ': ' + r.message : ''} ${JSON.stringify(r.stats)}`); }
