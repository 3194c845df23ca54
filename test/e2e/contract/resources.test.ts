/** The contract table, rule group "resources" (test/fixtures/mutants/resources.ts). */
import { groups } from '../../fixtures/mutants/index.js';
import { contractTable } from './runner.js';

contractTable('resources', groups['resources']);
