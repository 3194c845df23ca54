/** The contract table, rule group "content-type" (test/fixtures/mutants/content-type.ts). */
import { groups } from '../../fixtures/mutants/index.js';
import { contractTable } from './runner.js';

contractTable('content-type', groups['content-type']);
