import { it } from 'vitest';
import { redactorFor, excerpt } from '../../core/redact.js';
it('x', () => {
  const K = 'Ab"c\\d/e+f=gé-Zq9xyzw';
  const r = redactorFor(K);
  const forms = [
    K, JSON.stringify(K), JSON.stringify(K).replace(/\//g, '\\/'),
    [...K].map((c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0')).join(''),
    encodeURIComponent(K), encodeURIComponent(K).toLowerCase(),
    Buffer.from(K).toString('base64'), Buffer.from(`Bearer ${K}`).toString('base64'), Buffer.from(`conformance:${K}`).toString('base64'),
    Buffer.from(`xy:${K}`).toString('base64url'), Buffer.from(K).toString('hex').toUpperCase(), Buffer.from(K, 'latin1').toString('hex'),
    JSON.stringify(Buffer.from(`Bearer ${K}`).toString('base64')).replace(/\//g, '\\/'),
    encodeURIComponent(JSON.stringify(K)),
  ];
  for (const f of forms) console.log(JSON.stringify(f), '=>', JSON.stringify(r.redact(`before ${f} after`)));
  console.log(r.redact(`msg: ${excerpt('x'.repeat(100) + K + 'tail', 120, { mode: 'quote' })} end`));
  console.log(r.redact(`msg: ${excerpt(JSON.stringify({ m: 'x'.repeat(150) + K }), 160, { mode: 'json' })} end`));
  console.log(r.redactBytes(Buffer.from('zz' + K + 'zz\xff', 'latin1')).toString());
  const R2 = redactorFor('<API_KEY>');
  for (const f of [`Basic ${Buffer.from('conformance:<API_KEY>').toString('base64')}`, 'Bearer <API_KEY>x', 'Bearer <API_KEY', 'Bearer <api_key>']) console.log(f, '=>', R2.redact(f));
  for (const f of [`Basic ${Buffer.from(`conformance:${K}`).toString('base64')}`, `Bearer ${K}x`, `Bearer ${K.slice(0, -1)}`]) console.log(f, '=>', r.redact(f));
  const big = 'Q'.repeat(30000) + 'é';
  const rb = redactorFor(big);
  const t = Date.now();
  console.log(rb.redact(`aa ${big} bb ${Buffer.from(big).toString('base64')}`).slice(0, 100), Date.now() - t);
});
