'use strict';
// @node-idempotency/core with its in-memory storage adapter in front of the orders API, wired the
// way its NestJS interceptor (@node-idempotency/nestjs) wires it: the request fingerprint is the
// parsed body; errors map REQUEST_IN_PROGRESS -> 409 (with Retry-After: 1),
// IDEMPOTENCY_FINGERPRINT_MISSMATCH -> 422, key missing or too long -> 400, with Nest's
// {statusCode, message} body; a replay carries the stored status and `Idempotent-Replayed: true`;
// error answers are stored and replayed too.

const express = require('express');
const { Idempotency, IdempotencyError, IdempotencyErrorCodes } = require('@node-idempotency/core');
const { MemoryStorageAdapter } = require('@node-idempotency/storage-adapter-memory');
const orders = require('../lib/orders');

// As @node-idempotency/shared's idempotency2HttpCodeMap.
const statusOf = {
  [IdempotencyErrorCodes.IDEMPOTENCY_FINGERPRINT_MISSMATCH]: 422,
  [IdempotencyErrorCodes.IDEMPOTENCY_KEY_LEN_EXEEDED]: 400,
  [IdempotencyErrorCodes.IDEMPOTENCY_KEY_MISSING]: 400,
  [IdempotencyErrorCodes.REQUEST_IN_PROGRESS]: 409,
};

const idempotency = new Idempotency(new MemoryStorageAdapter());
const app = express();
app.use(express.json());

function replay(res, stored) {
  const status = stored.additional?.statusCode ?? 200;
  res.set('Idempotent-Replayed', 'true');
  if (stored.body !== undefined) return res.status(status).json(stored.body);
  return res.status(stored.error?.status ?? status).json(stored.error?.response ?? {});
}

app.post('/v1/orders', async (req, res) => {
  const request = { headers: req.headers, body: req.body, path: req.url, method: req.method };
  let stored;
  try {
    stored = await idempotency.onRequest(request);
  } catch (err) {
    if (!(err instanceof IdempotencyError)) {
      return res.status(500).json({ statusCode: 500, message: 'Internal server error' });
    }
    const status = statusOf[err.code] ?? 500;
    if (err.code === IdempotencyErrorCodes.REQUEST_IN_PROGRESS) res.set('Retry-After', '1');
    return res.status(status).json({ statusCode: status, message: err.message });
  }
  if (stored) return replay(res, stored);

  const { status, body } = await orders.createOrder(req.body);
  if (status < 400) {
    await idempotency.onResponse(request, { additional: { statusCode: status }, body });
  } else {
    // Nest stores an error without waiting for the storage.
    idempotency
      .onResponse(request, { additional: { statusCode: status }, error: { status, response: body } })
      .catch(() => {});
  }
  return res.status(status).json(body);
});
orders.addReadRoutes(app);

orders.serve(app);
