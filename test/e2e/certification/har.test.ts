/**
 * transcript.har is an HTTP Archive other tools open: Chromium, through
 * Playwright's HAR router, answers a page's requests from a transcript,
 * recorded as certify records it, with the recorded responses.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { redactorFor } from '../../../core/redact.js';
import { renderTranscript, toTranscriptEntry, type TranscriptEntry } from '../../../core/transcript.js';
import { runConformance } from '../../../suites/engine.js';
import { DISTINCTIVE_KEY, findChromium, tempDir, withServer } from '../../helpers.js';

const CHROMIUM = findChromium('test/e2e/certification/har.test.ts');

describe.skipIf(!CHROMIUM)('transcript.har in a browser', () => {
  it('Playwright routes a page from it, the target closed: the recorded animal comes back', async () => {
    const entries: TranscriptEntry[] = [];
    await withServer({}, (baseUrl) =>
      runConformance({
        baseUrl,
        apiKey: DISTINCTIVE_KEY,
        seed: 5,
        numRuns: 2,
        only: ['GET-RESPONSE'],
        onExchange: (x) => entries.push(toTranscriptEntry(x, redactorFor(DISTINCTIVE_KEY))),
      }),
    );
    const file = join(tempDir(), 'transcript.har');
    writeFileSync(file, renderTranscript(entries));
    // A GET the run sent, answered 200 with a body: what the browser must be shown.
    const recorded = entries.find((e) => e.request.method === 'GET' && /\/pets\/\d+$/.test(e.request.url) && e.response.status === 200)!;
    const body = Buffer.from(recorded.response.content.text, 'base64').toString('utf8');

    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu'],
      timeout: 30_000,
    });
    try {
      const context = await browser.newContext();
      await context.routeFromHAR(file, { notFound: 'abort' });
      const page = await context.newPage();
      const response = await page.goto(recorded.request.url);
      expect(response?.status()).toBe(200);
      expect(JSON.parse((await page.textContent('body'))!)).toEqual(JSON.parse(body));
    } finally {
      await browser.close();
    }
  });
});
