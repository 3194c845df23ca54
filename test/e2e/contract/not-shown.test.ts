/** The contract table, rule group "not-shown" (test/fixtures/mutants/not-shown.ts). */
import { groups } from '../../fixtures/mutants/index.js';
import { contractTable } from './runner.js';

contractTable('not-shown', groups['not-shown']);
