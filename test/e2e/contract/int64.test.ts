/** The contract table, rule group "int64" (test/fixtures/mutants/int64.ts). */
import { groups } from '../../fixtures/mutants/index.js';
import { contractTable } from './runner.js';

contractTable('int64', groups['int64']);
