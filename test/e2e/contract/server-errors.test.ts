/** The contract table, rule group "server-errors" (test/fixtures/mutants/server-errors.ts). */
import { groups } from '../../fixtures/mutants/index.js';
import { contractTable } from './runner.js';

contractTable('server-errors', groups['server-errors']);
