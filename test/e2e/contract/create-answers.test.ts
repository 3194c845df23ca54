/** The contract table, rule group "create-answers" (test/fixtures/mutants/create-answers.ts). */
import { groups } from '../../fixtures/mutants/index.js';
import { contractTable } from './runner.js';

contractTable('create-answers', groups['create-answers']);
