/** The contract table, rule group "errors" (test/fixtures/mutants/errors.ts). */
import { groups } from '../../fixtures/mutants/index.js';
import { contractTable } from './runner.js';

contractTable('errors', groups['errors']);
