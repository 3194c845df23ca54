/** The built-in checks, in run order. One explicit list: no registration by import side effect. */
import { registerChecks } from './check.js';
import { authChecks } from './checks/auth.js';
import { clientIndependence } from './probe.js';
import { concurrencyChecks } from './checks/concurrency.js';
import { createPetChecks } from './checks/createPet.js';
import { getPetChecks } from './checks/getPet.js';
import { listPetsChecks } from './checks/listPets.js';
import { responseChecks } from './checks/responses.js';
import { seedStore } from './checks/store.js';
import { storeOrdersChecks } from './checks/storeOrders.js';

export const builtinChecks = registerChecks([
  seedStore,
  ...listPetsChecks,
  ...createPetChecks,
  ...concurrencyChecks,
  ...getPetChecks,
  ...storeOrdersChecks,
  ...authChecks,
  ...responseChecks,
  clientIndependence,
]);
