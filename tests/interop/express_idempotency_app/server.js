'use strict';
// express-idempotency (unchanged, its default in-memory adapter) in front of the orders API.
//
// What the layer does, from its source: a new key is stored before the handler runs; a repeat
// while it runs is answered 409 through next(err) (Express's default error handler: an HTML
// body, no Retry-After); a repeat with another body or URL is answered 417; only a 2xx answer is
// stored and replayed (with its Content-Type, and no replay marker): any other answer deletes
// the key, so a retry executes again. It calls next() after a replay too, so the handler must
// ask isHit() and stay out of the way.

const express = require('express');
const { idempotency, getSharedIdempotencyService } = require('express-idempotency');
const orders = require('../lib/orders');

const app = express();
app.use(express.json());

app.post('/v1/orders', idempotency(), async (req, res) => {
  if (getSharedIdempotencyService().isHit(req)) return;  // answered by the layer
  const { status, body } = await orders.createOrder(req.body);
  res.status(status).json(body);
});
orders.addReadRoutes(app);

orders.serve(app);
