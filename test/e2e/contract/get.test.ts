/** The contract table, rule group "get" (test/fixtures/mutants/get.ts). */
import { groups } from '../../fixtures/mutants/index.js';
import { contractTable } from './runner.js';

contractTable('get', groups['get']);
