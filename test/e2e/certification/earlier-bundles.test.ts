/**
 * A bundle certified before a change of the code that keeps the suite's behaviour (issue 22 reorganised every layer)
 * still verifies: test/fixtures/certification/format-3.tar.gz was written by `certify` at eeacbf3. Its suite hash is
 * another installation's, which verify says; what decides is that every verdict, judged again with this code from the
 * transcript, agrees.
 */
import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { packBundle, unpackBundle } from '../../../certification/bundle.js';
import { describeStep } from '../../../certification/format.js';
import { suiteHash } from '../../../certification/manifest.js';
import { verifyBundle } from '../../../certification/verify.js';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/certification/${name}`, import.meta.url));
const BUNDLE = fixture('format-3.tar.gz');
const PUBLIC_KEY = createPublicKey(fixture('format-3.pub.pem'));

describe('a bundle certified by eeacbf3', () => {
  it('verifies: no problem, its verdicts agree with this code, and the other suite hash is said', { timeout: 60_000 }, async () => {
    const verification = await verifyBundle(BUNDLE, {
      publicKey: PUBLIC_KEY,
      product: { name: 'Acme Petstore', version: '2.4.1', contact: 'certification@acme.example' },
      baseUrl: 'http://127.0.0.1:46873/v1',
    });
    expect(verification.problems.map((p) => describeStep(p).text)).toEqual([]);
    const codes = verification.steps.map((s) => s.code);
    expect(codes).toEqual(
      expect.arrayContaining([
        'SIGNATURE_VALID',
        'FILES_MATCH',
        'VERDICTS_AGREE',
        'DECISION_FOLLOWS',
        'PRODUCT_MATCHES',
        'BASE_URL_MATCHES',
      ]),
    );
    expect(verification.manifest?.suiteHash).not.toBe(suiteHash());
    expect(verification.steps).toContainEqual(
      expect.objectContaining({ code: 'SUITE_CODE_DIFFERS', bundle: verification.manifest?.suiteHash, installed: suiteHash() }),
    );
    expect(verification.steps).toContainEqual({ code: 'DECISION_FOLLOWS', certified: true });
  });

  it(
    'a verdict that no longer follows is still a problem: report.json claims a rule this code judges otherwise',
    { timeout: 60_000 },
    async () => {
      // The same bundle without its signature check, report.json edited: the hash of the edited file differs, and the
      // recomputation disagrees with the claimed outcome. Both are problems, whatever the suite hash says.
      const { files } = await unpackBundle(BUNDLE);
      const report = JSON.parse(files.get('report.json')!.toString('utf8')) as { rules: { id: string; outcome: string }[] };
      report.rules.find((r) => r.id === 'CLIENT-INDEPENDENT')!.outcome = 'fail';
      files.set('report.json', Buffer.from(JSON.stringify(report)));
      const edited = await packBundle(files, new Date(0));
      const verification = await verifyBundle(edited);
      expect(verification.problems.map((p) => p.code)).toEqual(expect.arrayContaining(['HASH_MISMATCH']));
      expect(verification.problems).toContainEqual(
        expect.objectContaining({ code: 'RULE_DIFFERS', rule: 'CLIENT-INDEPENDENT', recorded: 'fail', recomputed: 'pass' }),
      );
    },
  );
});
