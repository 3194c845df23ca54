/** The contract table, rule group "orders" (test/fixtures/mutants/orders.ts). */
import { groups } from '../../fixtures/mutants/index.js';
import { contractTable } from './runner.js';

contractTable('orders', groups['orders']);
