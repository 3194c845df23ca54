/** The contract table, rule group "field" (test/fixtures/mutants/field.ts). */
import { groups } from '../../fixtures/mutants/index.js';
import { contractTable } from './runner.js';

contractTable('field', groups['field']);
