/** The contract table, rule group "deprecation" (test/fixtures/mutants/deprecation.ts). */
import { groups } from '../../fixtures/mutants/index.js';
import { contractTable } from './runner.js';

contractTable('deprecation', groups['deprecation']);
