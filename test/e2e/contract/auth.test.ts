/** The contract table, rule group "auth" (test/fixtures/mutants/auth.ts). */
import { groups } from '../../fixtures/mutants/index.js';
import { contractTable } from './runner.js';

contractTable('auth', groups['auth']);
