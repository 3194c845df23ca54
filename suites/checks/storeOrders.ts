/** `GET /store/orders` (Endpoints › Other endpoints): it exists; nothing else is known. */
import { defineCheck } from '../check.js';
import { describeResponse, jsonOf } from '../judge.js';
import { listStoreOrders } from '../requests.js';

/** Statuses that would say the endpoint does not exist. */
const ABSENT = [404, 405, 501];

export const ordersExist = defineCheck({
  kind: 'example',
  id: 'storeOrders.exists',
  title: 'GET /store/orders with the key is answered, not 404, 405 or 501',
  phase: 'storeOrders',
  operation: 'listStoreOrders',
  rules: ['ORDERS-EXISTS'],
  gaps: ['GAP-ORDERS-RESPONSES'],
  async run(ctx) {
    const x = await ctx.send(listStoreOrders());
    const status = x.response?.status;
    if (status === undefined || ABSENT.includes(status))
      ctx.fail(
        'ORDERS-EXISTS',
        { code: 'OPERATION_MISSING', args: { operation: 'GET /store/orders', received: describeResponse(x) } },
        [x],
        `status ${status ?? 'none'}`,
        { kind: 'not-status', rule: 'ORDERS-EXISTS', refused: ABSENT, what: 'GET /store/orders' },
      );
    else ctx.pass('ORDERS-EXISTS');
    if (status !== undefined) {
      const body = jsonOf(x);
      const shape = x.response?.truncated
        ? 'a body longer than the suite reads'
        : body === undefined
          ? 'no JSON body'
          : Array.isArray(body)
            ? `a JSON array of ${body.length}`
            : typeof body === 'object' && body !== null
              ? 'a JSON object'
              : 'a JSON scalar';
      ctx.observe('GAP-ORDERS-RESPONSES', 'listStoreOrders', `${status} with ${shape}`, x);
    }
  },
});

export const storeOrdersChecks = [ordersExist] as const;
