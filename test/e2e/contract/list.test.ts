/** The contract table, rule group "list" (test/fixtures/mutants/list.ts). */
import { groups } from '../../fixtures/mutants/index.js';
import { contractTable } from './runner.js';

contractTable('list', groups['list']);
