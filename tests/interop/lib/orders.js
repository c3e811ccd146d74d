'use strict';
// The orders API both interop apps share: a create-order handler that takes a little time and
// counts each execution, the lookup by merchant_order_id, /_stats, and how the app starts
// (127.0.0.1, a free port printed as the first stdout line) and stops (SIGTERM).
//
// The idempotency layer under test sits in front of `createOrder`; everything here is the
// "business" side, so its counters are the ground truth the C++ test compares with.

const orders = [];
const byMerchantId = new Map();
const duplicateMerchantIds = new Set();
let executions = 0;
let duplicateAttempts = 0;

// `--handler-ms 20-50` (a range) or `--handler-ms 30`: how long one execution takes, so that a
// retry can meet it still running and a proxy can drop the connection while it runs.
function handlerDelayRange(argv) {
  const i = argv.indexOf('--handler-ms');
  const spec = i >= 0 && argv[i + 1] ? argv[i + 1] : '20-50';
  const [lo, hi] = spec.split('-').map(Number);
  return [lo, Number.isFinite(hi) ? hi : lo];
}

const [delayLo, delayHi] = handlerDelayRange(process.argv);

function handlerDelay() {
  return delayLo + Math.floor(Math.random() * (delayHi - delayLo + 1));
}

function isValidOrder(b) {
  return (
    b !== null &&
    typeof b === 'object' &&
    typeof b.merchant_order_id === 'string' &&
    b.merchant_order_id.length > 0 &&
    typeof b.currency === 'string' &&
    Number.isInteger(b.amount_minor) &&
    Array.isArray(b.items)
  );
}

// One execution of the business operation: resolves to {status, body}. Never rejects.
async function createOrder(body) {
  executions += 1;
  await new Promise((resolve) => setTimeout(resolve, handlerDelay()));
  if (!isValidOrder(body)) return { status: 400, body: { error: 'invalid order' } };
  if (byMerchantId.has(body.merchant_order_id)) {
    // A second execution for the same business id: the idempotency layer let a retry through.
    duplicateAttempts += 1;
    duplicateMerchantIds.add(body.merchant_order_id);
    return { status: 409, body: { error: 'duplicate merchant_order_id' } };
  }
  const order = {
    id: `ord_${orders.length + 1}`,
    merchant_order_id: body.merchant_order_id,
    customer_id: body.customer_id,
    amount_minor: body.amount_minor,
    currency: body.currency,
    items: body.items.map((it) => ({
      sku: it.sku,
      quantity: it.quantity,
      unit_price_minor: it.unit_price_minor,
    })),
    status: 'CREATED',
  };
  orders.push(order);
  byMerchantId.set(order.merchant_order_id, order);
  return { status: 201, body: order };
}

// GET /v1/orders?merchant_order_id=X
function findOrders(merchantOrderId) {
  const found = byMerchantId.get(merchantOrderId);
  return { data: found ? [found] : [] };
}

// GET /_stats
function stats() {
  return {
    executions,
    orders: orders.length,
    orders_with_duplicate_merchant_id: duplicateMerchantIds.size,
    duplicate_attempts: duplicateAttempts,
  };
}

// The read-only routes, the same in both apps (no idempotency layer on GETs).
function addReadRoutes(app) {
  app.get('/v1/orders', (req, res) => {
    res.status(200).json(findOrders(String(req.query.merchant_order_id ?? '')));
  });
  app.get('/_stats', (req, res) => res.status(200).json(stats()));
}

// Listens on 127.0.0.1 with a port the OS picks and prints "listening on http://127.0.0.1:PORT"
// as the first stdout line (what the test reads); exits on SIGTERM or SIGINT.
function serve(app) {
  const server = app.listen(0, '127.0.0.1', () => {
    process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`);
  });
  for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => process.exit(0));
  return server;
}

module.exports = { createOrder, findOrders, stats, addReadRoutes, serve };
