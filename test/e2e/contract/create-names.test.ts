/** The contract table, rule group "create-names" (test/fixtures/mutants/create-names.ts). */
import { groups } from '../../fixtures/mutants/index.js';
import { contractTable } from './runner.js';

contractTable('create-names', groups['create-names']);
