import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generatedFiles } from '../../../cli/generated.js';
import { gaps } from '../../../spec/gaps.js';
import { openapi } from '../../../spec/openapi.js';
import { rules } from '../../../spec/rules.js';
import { ENGINE_GAPS } from '../../../suites/engine.js';
import { builtinChecks } from '../../../suites/registry.js';

/** The normative document, vendored into the repository (never read from outside it). */
const INTERFACE_DOCUMENT = new URL('../../../spec/animal-store-interface.md', import.meta.url);

describe('rule catalog', () => {
  it('has unique rule ids in UPPER-KEBAB form', () => {
    const ids = rules.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[A-Z0-9]+(-[A-Z0-9]+)+$/);
  });

  it('gives every rule at least one check', () => {
    const covered = new Set(builtinChecks.flatMap((c) => c.rules as readonly string[]));
    expect(rules.map((r) => r.id).filter((id) => !covered.has(id))).toEqual([]);
  });

  it('has every check name catalog rules or gaps only, and at least one', () => {
    const ruleIds = new Set<string>(rules.map((r) => r.id));
    const gapIds = new Set<string>(gaps.map((g) => g.id));
    for (const check of builtinChecks) {
      expect(check.rules.length + check.gaps.length, check.id).toBeGreaterThan(0);
      for (const rule of check.rules) expect(ruleIds.has(rule), `${check.id} → ${rule}`).toBe(true);
      for (const gap of check.gaps) expect(gapIds.has(gap), `${check.id} → ${gap}`).toBe(true);
    }
  });

  it('observes every gap somewhere', () => {
    const observed = new Set([...builtinChecks.flatMap((c) => c.gaps as readonly string[]), ...ENGINE_GAPS]);
    expect(gaps.map((g) => g.id).filter((id) => !observed.has(id))).toEqual([]);
  });

  it('traces every rule to a section of the document and a quoted statement', () => {
    const document = readFileSync(INTERFACE_DOCUMENT, 'utf8');
    const headings = [
      'Resources and their fields',
      'Endpoints',
      'Authentication',
      'Errors',
      'Limits',
      'Versioning',
      'States and transitions',
      'What the service does',
    ];
    for (const rule of rules) {
      expect(headings.some((h) => rule.section.includes(h)) || rule.section.includes('introduction'), rule.id).toBe(true);
      expect(rule.statement.length, rule.id).toBeGreaterThan(10);
    }
    for (const h of headings) expect(document).toContain(`## ${h}`);
  });

  it('reads the vendored interface document, unchanged since it was copied (spec/animal-store-interface.SOURCE.md)', () => {
    const recorded = /sha256: `([0-9a-f]{64})`/.exec(
      readFileSync(new URL('../../../spec/animal-store-interface.SOURCE.md', import.meta.url), 'utf8'),
    )?.[1];
    expect(createHash('sha256').update(readFileSync(INTERFACE_DOCUMENT)).digest('hex')).toBe(recorded);
  });

  it('keeps the generated files current (run npm run gen)', () => {
    for (const [path, content] of Object.entries(generatedFiles())) {
      expect(readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8'), path).toBe(content);
    }
  });
});

describe('OpenAPI document', () => {
  const operations = Object.entries(openapi.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method, op: op as Record<string, unknown> })),
  );

  it('is OpenAPI 3.1 with version 1.0.0', () => {
    expect(openapi.openapi).toBe('3.1.0');
    expect(openapi.info.version).toBe('1.0.0');
  });

  it('requires bearerAuth on every operation, /store/orders included', () => {
    expect(operations.map((o) => `${o.method} ${o.path}`)).toEqual(['get /pets', 'post /pets', 'get /pets/{petId}', 'get /store/orders']);
    for (const { op } of operations) expect(op.security).toEqual([{ bearerAuth: [] }]);
    expect(openapi.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('marks getPet, and only getPet, deprecated', () => {
    expect(operations.filter((o) => o.op.deprecated === true).map((o) => o.op.operationId)).toEqual(['getPet']);
  });

  it('gives ids and categoryIds the int64 format', () => {
    const { Pet, NewPet } = openapi.components.schemas;
    expect(Pet.properties.id.format).toBe('int64');
    expect(Pet.properties.categoryId.format).toBe('int64');
    expect(NewPet.properties.categoryId.format).toBe('int64');
    expect(openapi.components.schemas.PetStatus.enum).toEqual(['available', 'pending', 'sold']);
  });
});
