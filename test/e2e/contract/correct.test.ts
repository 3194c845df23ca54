/** The contract table, rule group "correct" (test/fixtures/mutants/correct.ts). */
import { groups } from '../../fixtures/mutants/index.js';
import { contractTable } from './runner.js';

contractTable('correct', groups['correct']);
