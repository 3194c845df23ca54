/** The contract table, rule group "create-invalid" (test/fixtures/mutants/create-invalid.ts). */
import { groups } from '../../fixtures/mutants/index.js';
import { contractTable } from './runner.js';

contractTable('create-invalid', groups['create-invalid']);
