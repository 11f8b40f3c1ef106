// Source files for bench/lint.ts: ordinary backend code in the 9 linted languages (HTTP
// handlers, loops, string handling, read-through caches on a Redis client) with a few real lock
// mistakes and a few correct locks among it. Deterministic: the same seed gives the same files.
import type { RuleCode } from '../server/src/catalogue';
import type { Grammar } from '../server/src/languages';

export const LANGUAGES = ['javascript', 'typescript', 'python', 'java', 'go', 'php', 'csharp', 'ruby', 'lua'] as const;
export type Language = (typeof LANGUAGES)[number];

/** The tree-sitter grammar of each language. */
export const GRAMMAR: Record<Language, Grammar> = {
  javascript: 'javascript',
  typescript: 'typescript',
  python: 'python',
  java: 'java',
  go: 'go',
  php: 'php',
  csharp: 'c-sharp',
  ruby: 'ruby',
  lua: 'lua',
};

export const EXTENSION: Record<Language, string> = {
  javascript: 'js',
  typescript: 'ts',
  python: 'py',
  java: 'java',
  go: 'go',
  php: 'php',
  csharp: 'cs',
  ruby: 'rb',
  lua: 'lua',
};

const ORDINARY = ['handler', 'loop', 'strings', 'cache'] as const;
const MISTAKES = ['setnxExpire', 'getCompareDel', 'constantValue'] as const;
type Kind = (typeof ORDINARY)[number] | (typeof MISTAKES)[number] | 'safeLock';

interface Templates {
  /** Imports, the Redis client, the release script. */
  header: string;
  footer: string;
  comment: string;
  /** Java, C#, PHP, Ruby: blocks are members of classes opened and closed here. */
  classOpen?(n: number): string;
  classClose?: string;
  blocks: Record<Kind, (n: number) => string>;
}

/** What each block makes the linter report (Lua's mistakes are all LOCK007). */
function expected(language: Language, kind: Kind): RuleCode[] {
  // Lua: a hard-coded key; KEYS plus an UNLINK of what it found; a key taken from ARGV.
  if (language === 'lua')
    return kind === 'getCompareDel' ? ['LOCK007', 'LOCK007'] : MISTAKES.includes(kind as never) ? ['LOCK007'] : [];
  switch (kind) {
    case 'setnxExpire':
      return ['LOCK001'];
    case 'getCompareDel':
      return ['LOCK004'];
    case 'constantValue':
      return ['LOCK006'];
    default:
      return [];
  }
}

const block = (text: string) => text.replace(/^\n/, '').replace(/\n\s*$/, '');

const JS_HEADER = block(`
'use strict';

const Redis = require('ioredis');
const express = require('express');
const { randomUUID } = require('crypto');
const db = require('./db');
const logger = require('./logger');

const redis = new Redis(process.env.REDIS_URL || 'redis://localhost:6379');
const router = express.Router();

const RELEASE_SCRIPT = \`
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
\`;
`);

const javascript: Templates = {
  header: JS_HEADER,
  footer: 'module.exports = { router };',
  comment: '//',
  blocks: {
    handler: (n) =>
      block(`
router.get('/orders/:id/items${n}', async (req, res, next) => {
  try {
    const orderId = String(req.params.id || '').trim();
    if (!/^[0-9a-f-]{8,}$/i.test(orderId)) {
      res.status(400).json({ error: 'invalid order id' });
      return;
    }
    const page = Math.max(1, parseInt(req.query.page, 10) || 1);
    const items = await loadOrderItems${n}(orderId, page);
    logger.info({ orderId, page, count: items.length }, 'order items listed');
    res.json({ orderId, page, items, count: items.length });
  } catch (err) {
    next(err);
  }
});

async function loadOrderItems${n}(orderId, page) {
  const rows = await db.query(
    'SELECT sku, quantity, price_cents FROM order_items WHERE order_id = $1 LIMIT 50 OFFSET $2',
    [orderId, (page - 1) * 50],
  );
  return rows.map((row) => ({ sku: row.sku, quantity: Number(row.quantity), price: row.price_cents / 100 }));
}
`),
    loop: (n) =>
      block(`
function summarizeInvoices${n}(invoices, currency) {
  const totals = new Map();
  let overdue = 0;
  for (const invoice of invoices) {
    if (invoice.currency !== currency) {
      continue;
    }
    const bucket = invoice.customerId;
    totals.set(bucket, (totals.get(bucket) || 0) + invoice.amount);
    if (invoice.dueAt < Date.now() && !invoice.paid) {
      overdue += 1;
    }
  }
  const ranked = [...totals.entries()].sort((a, b) => b[1] - a[1]);
  return { overdue, top: ranked.slice(0, 10), customers: totals.size };
}
`),
    strings: (n) =>
      block(`
function formatAddress${n}(address) {
  const parts = [address.line1, address.line2, address.city, address.postcode]
    .filter(Boolean)
    .map((part) => part.trim().replace(/\\s+/g, ' '));
  const country = (address.country || 'gb').toUpperCase();
  return \`\${parts.join(', ')} (\${country})\`;
}

function slugify${n}(title) {
  return title
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80);
}
`),
    cache: (n) =>
      block(`
async function getProductCached${n}(productId) {
  const cacheKey = \`cache:product:\${productId}\`;
  const cached = await redis.get(cacheKey);
  if (cached) {
    return JSON.parse(cached);
  }
  const product = await db.one('SELECT * FROM products WHERE id = $1', [productId]);
  await redis.set(cacheKey, JSON.stringify(product), 'EX', 300);
  return product;
}

async function invalidateProduct${n}(productId) {
  await redis.del(\`cache:product:\${productId}\`);
}
`),
    setnxExpire: (n) =>
      block(`
async function acquireImportLock${n}(tenantId) {
  const lockKey = \`lock:import:\${tenantId}\`;
  const token = randomUUID();
  const acquired = await redis.setnx(lockKey, token);
  if (acquired !== 1) {
    return null;
  }
  await redis.expire(lockKey, 30);
  return token;
}
`),
    getCompareDel: (n) =>
      block(`
async function releaseImportLock${n}(lockKey, token) {
  const holder = await redis.get(lockKey);
  if (holder === token) {
    await redis.del(lockKey);
    return true;
  }
  return false;
}
`),
    constantValue: (n) =>
      block(`
async function nightlyReportJob${n}(buildReport) {
  const ok = await redis.set('lock:nightly-report:${n}', 'locked', 'EX', 3600, 'NX');
  if (ok !== 'OK') {
    return;
  }
  await buildReport();
}
`),
    safeLock: (n) =>
      block(`
async function withLock${n}(resource, work) {
  const lockKey = \`lock:\${resource}\`;
  const token = randomUUID();
  const ok = await redis.set(lockKey, token, 'PX', 30000, 'NX');
  if (ok !== 'OK') {
    return false;
  }
  try {
    await work();
  } finally {
    await redis.eval(RELEASE_SCRIPT, 1, lockKey, token);
  }
  return true;
}
`),
  },
};

const typescript: Templates = {
  header: block(`
import Redis from 'ioredis';
import { Router, type NextFunction, type Request, type Response } from 'express';
import { randomUUID } from 'node:crypto';
import { db } from './db';
import { logger } from './logger';

const redis = new Redis(process.env.REDIS_URL ?? 'redis://localhost:6379');
export const router = Router();

const RELEASE_SCRIPT = \`
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
\`;

export interface Product {
  id: string;
  name: string;
  priceCents: number;
  tags: string[];
}
`),
  footer: 'export default router;',
  comment: '//',
  blocks: {
    handler: (n) =>
      block(`
interface OrderItem${n} {
  sku: string;
  quantity: number;
  price: number;
}

router.get('/orders/:id/items${n}', async (req: Request, res: Response, next: NextFunction) => {
  try {
    const orderId = String(req.params.id ?? '').trim();
    if (!/^[0-9a-f-]{8,}$/i.test(orderId)) {
      res.status(400).json({ error: 'invalid order id' });
      return;
    }
    const page = Math.max(1, Number.parseInt(String(req.query.page ?? '1'), 10) || 1);
    const items: OrderItem${n}[] = await loadOrderItems${n}(orderId, page);
    logger.info({ orderId, page, count: items.length }, 'order items listed');
    res.json({ orderId, page, items, count: items.length });
  } catch (err: unknown) {
    next(err);
  }
});

async function loadOrderItems${n}(orderId: string, page: number): Promise<OrderItem${n}[]> {
  const rows = await db.query<{ sku: string; quantity: string; price_cents: number }>(
    'SELECT sku, quantity, price_cents FROM order_items WHERE order_id = $1 LIMIT 50 OFFSET $2',
    [orderId, (page - 1) * 50],
  );
  return rows.map((row) => ({ sku: row.sku, quantity: Number(row.quantity), price: row.price_cents / 100 }));
}
`),
    loop: (n) =>
      block(`
export function summarizeInvoices${n}(invoices: readonly { customerId: string; amount: number; currency: string; dueAt: number; paid: boolean }[], currency: string) {
  const totals = new Map<string, number>();
  let overdue = 0;
  for (const invoice of invoices) {
    if (invoice.currency !== currency) {
      continue;
    }
    totals.set(invoice.customerId, (totals.get(invoice.customerId) ?? 0) + invoice.amount);
    if (invoice.dueAt < Date.now() && !invoice.paid) {
      overdue += 1;
    }
  }
  const ranked = [...totals.entries()].sort((a, b) => b[1] - a[1]);
  return { overdue, top: ranked.slice(0, 10), customers: totals.size };
}
`),
    strings: (n) =>
      block(`
export function formatAddress${n}(address: { line1: string; line2?: string; city: string; postcode: string; country?: string }): string {
  const parts = [address.line1, address.line2, address.city, address.postcode]
    .filter((part): part is string => !!part)
    .map((part) => part.trim().replace(/\\s+/g, ' '));
  const country = (address.country ?? 'gb').toUpperCase();
  return \`\${parts.join(', ')} (\${country})\`;
}

export function slugify${n}(title: string): string {
  return title
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80);
}
`),
    cache: (n) =>
      block(`
export async function getProductCached${n}(productId: string): Promise<Product> {
  const cacheKey = \`cache:product:\${productId}\`;
  const cached = await redis.get(cacheKey);
  if (cached) {
    return JSON.parse(cached) as Product;
  }
  const product = await db.one<Product>('SELECT * FROM products WHERE id = $1', [productId]);
  await redis.set(cacheKey, JSON.stringify(product), 'EX', 300);
  return product;
}

export async function invalidateProduct${n}(productId: string): Promise<void> {
  await redis.del(\`cache:product:\${productId}\`);
}
`),
    setnxExpire: (n) =>
      block(`
export async function acquireImportLock${n}(tenantId: string): Promise<string | null> {
  const lockKey = \`lock:import:\${tenantId}\`;
  const token = randomUUID();
  const acquired = await redis.setnx(lockKey, token);
  if (acquired !== 1) {
    return null;
  }
  await redis.pexpire(lockKey, 30000);
  return token;
}
`),
    getCompareDel: (n) =>
      block(`
export async function releaseImportLock${n}(lockKey: string, token: string): Promise<boolean> {
  const holder = await redis.get(lockKey);
  if (holder === token) {
    await redis.del(lockKey);
    return true;
  }
  return false;
}
`),
    constantValue: (n) =>
      block(`
export async function nightlyReportJob${n}(buildReport: () => Promise<void>): Promise<void> {
  const reply = await redis.set('lock:nightly-report:${n}', 'locked', 'EX', 3600, 'NX');
  if (reply !== 'OK') {
    return;
  }
  await buildReport();
}
`),
    safeLock: (n) =>
      block(`
export async function withLock${n}<T>(resource: string, work: () => Promise<T>): Promise<T | undefined> {
  const lockKey = \`lock:\${resource}\`;
  const token = randomUUID();
  const ok = await redis.set(lockKey, token, 'PX', 30000, 'NX');
  if (ok !== 'OK') {
    return undefined;
  }
  try {
    return await work();
  } finally {
    await redis.eval(RELEASE_SCRIPT, 1, lockKey, token);
  }
}
`),
  },
};

const python: Templates = {
  header: block(`
import json
import logging
import re
import uuid
from collections import defaultdict
from datetime import datetime, timezone

import redis
from flask import Flask, jsonify, request

from app.db import db

app = Flask(__name__)
log = logging.getLogger(__name__)
r = redis.Redis.from_url("redis://localhost:6379/0", decode_responses=True)
ORDER_ID = re.compile(r"^[0-9a-f-]{8,}$", re.IGNORECASE)

RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('del', KEYS[1])
end
return 0
"""
release_script = r.register_script(RELEASE)
`),
  footer: block(`
if __name__ == "__main__":
    app.run(debug=False)
`),
  comment: '#',
  blocks: {
    handler: (n) =>
      block(`
@app.route("/orders/<order_id>/items${n}")
def order_items_${n}(order_id):
    order_id = order_id.strip()
    if not ORDER_ID.match(order_id):
        return jsonify({"error": "invalid order id"}), 400
    page = max(1, request.args.get("page", 1, type=int))
    rows = db.execute(
        "SELECT sku, quantity, price_cents FROM order_items WHERE order_id = %s LIMIT 50 OFFSET %s",
        (order_id, (page - 1) * 50),
    )
    items = [
        {"sku": row["sku"], "quantity": int(row["quantity"]), "price": row["price_cents"] / 100}
        for row in rows
    ]
    log.info("order items listed", extra={"order_id": order_id, "count": len(items)})
    return jsonify({"order_id": order_id, "page": page, "items": items, "count": len(items)})
`),
    loop: (n) =>
      block(`
def summarize_invoices_${n}(invoices, currency):
    totals = defaultdict(int)
    overdue = 0
    now = datetime.now(timezone.utc)
    for invoice in invoices:
        if invoice["currency"] != currency:
            continue
        totals[invoice["customer_id"]] += invoice["amount"]
        if invoice["due_at"] < now and not invoice["paid"]:
            overdue += 1
    ranked = sorted(totals.items(), key=lambda item: item[1], reverse=True)
    return {"overdue": overdue, "top": ranked[:10], "customers": len(totals)}
`),
    strings: (n) =>
      block(`
def format_address_${n}(address):
    parts = [address.get(field) for field in ("line1", "line2", "city", "postcode")]
    parts = [" ".join(part.split()) for part in parts if part]
    country = (address.get("country") or "gb").upper()
    return f"{', '.join(parts)} ({country})"


def slugify_${n}(title):
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower())
    return slug.strip("-")[:80]
`),
    cache: (n) =>
      block(`
def get_product_cached_${n}(product_id):
    cache_key = f"cache:product:{product_id}"
    cached = r.get(cache_key)
    if cached:
        return json.loads(cached)
    product = db.fetch_one("SELECT * FROM products WHERE id = %s", (product_id,))
    r.set(cache_key, json.dumps(product), ex=300)
    return product


def invalidate_product_${n}(product_id):
    r.delete(f"cache:product:{product_id}")
`),
    setnxExpire: (n) =>
      block(`
def acquire_import_lock_${n}(tenant_id):
    lock_key = f"lock:import:{tenant_id}"
    token = str(uuid.uuid4())
    if r.setnx(lock_key, token):
        r.expire(lock_key, 30)
        return token
    return None
`),
    getCompareDel: (n) =>
      block(`
def release_import_lock_${n}(lock_key, token):
    if r.get(lock_key) == token:
        r.delete(lock_key)
        return True
    return False
`),
    constantValue: (n) =>
      block(`
def daily_digest_job_${n}(build_digest):
    if not r.set("lock:daily-digest:${n}", 1, nx=True, ex=3600):
        return
    build_digest()
`),
    safeLock: (n) =>
      block(`
def with_lock_${n}(resource, work):
    lock_key = f"lock:{resource}"
    token = uuid.uuid4().hex
    if not r.set(lock_key, token, nx=True, px=30000):
        return False
    try:
        work()
    finally:
        release_script(keys=[lock_key], args=[token])
    return True
`),
  },
};

const java: Templates = {
  header: block(`
package com.example.shop;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.SetParams;
`),
  footer: '',
  comment: '//',
  classOpen: (n) =>
    block(`
@RestController
class OrderService${n} {
    private static final String RELEASE =
        "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

    private final Jedis jedis;
    private final OrderRepository orders;
    private final ObjectMapper mapper = new ObjectMapper();

    OrderService${n}(Jedis jedis, OrderRepository orders) {
        this.jedis = jedis;
        this.orders = orders;
    }
`),
  classClose: '}',
  blocks: {
    handler: (n) =>
      block(`
    @GetMapping("/orders/{id}/items${n}")
    public ResponseEntity<Map<String, Object>> orderItems${n}(@PathVariable String id, @RequestParam(defaultValue = "1") int page) {
        String orderId = id.trim();
        if (!orderId.matches("^[0-9a-f-]{8,}$")) {
            return ResponseEntity.badRequest().body(Map.of("error", "invalid order id"));
        }
        List<Map<String, Object>> items = new ArrayList<>();
        for (OrderItem item : orders.items(orderId, Math.max(1, page), 50)) {
            Map<String, Object> row = new HashMap<>();
            row.put("sku", item.sku());
            row.put("quantity", item.quantity());
            row.put("price", item.priceCents() / 100.0);
            items.add(row);
        }
        Map<String, Object> body = new HashMap<>();
        body.put("orderId", orderId);
        body.put("page", page);
        body.put("items", items);
        return ResponseEntity.ok(body);
    }
`),
    loop: (n) =>
      block(`
    Map<String, Long> summarizeInvoices${n}(List<Invoice> invoices, String currency) {
        Map<String, Long> totals = new HashMap<>();
        long overdue = 0;
        Instant now = Instant.now();
        for (Invoice invoice : invoices) {
            if (!invoice.currency().equals(currency)) {
                continue;
            }
            totals.merge(invoice.customerId(), invoice.amount(), Long::sum);
            if (invoice.dueAt().isBefore(now) && !invoice.paid()) {
                overdue++;
            }
        }
        totals.put("__overdue", overdue);
        return totals;
    }
`),
    strings: (n) =>
      block(`
    String formatAddress${n}(Address address) {
        List<String> parts = new ArrayList<>();
        for (String part : List.of(address.line1(), address.line2(), address.city(), address.postcode())) {
            if (part != null && !part.isBlank()) {
                parts.add(part.trim().replaceAll("\\\\s+", " "));
            }
        }
        String country = address.country() == null ? "GB" : address.country().toUpperCase(Locale.ROOT);
        return String.join(", ", parts) + " (" + country + ")";
    }

    String slugify${n}(String title) {
        String slug = title.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-+|-+$", "");
        return slug.length() > 80 ? slug.substring(0, 80) : slug;
    }
`),
    cache: (n) =>
      block(`
    Product productCached${n}(String productId) throws Exception {
        String cacheKey = "cache:product:" + productId;
        String cached = jedis.get(cacheKey);
        if (cached != null) {
            return mapper.readValue(cached, Product.class);
        }
        Product product = orders.product(productId);
        jedis.setex(cacheKey, 300, mapper.writeValueAsString(product));
        return product;
    }

    void invalidateProduct${n}(String productId) {
        jedis.del("cache:product:" + productId);
    }
`),
    setnxExpire: (n) =>
      block(`
    String acquireImportLock${n}(String tenantId) {
        String lockKey = "lock:import:" + tenantId;
        String token = UUID.randomUUID().toString();
        if (jedis.setnx(lockKey, token) == 1L) {
            jedis.expire(lockKey, 30);
            return token;
        }
        return null;
    }
`),
    getCompareDel: (n) =>
      block(`
    boolean releaseImportLock${n}(String lockKey, String token) {
        if (token.equals(jedis.get(lockKey))) {
            jedis.del(lockKey);
            return true;
        }
        return false;
    }
`),
    constantValue: (n) =>
      block(`
    void exportInvoices${n}(Runnable export) {
        String reply = jedis.set("lock:invoice-export:${n}", "locked", SetParams.setParams().nx().ex(600));
        if (!"OK".equals(reply)) {
            return;
        }
        export.run();
    }
`),
    safeLock: (n) =>
      block(`
    boolean withLock${n}(String resource, Runnable work) {
        String lockKey = "lock:" + resource;
        String token = UUID.randomUUID().toString();
        if (!"OK".equals(jedis.set(lockKey, token, SetParams.setParams().nx().px(30000)))) {
            return false;
        }
        try {
            work.run();
        } finally {
            jedis.eval(RELEASE, Collections.singletonList(lockKey), Collections.singletonList(token));
        }
        return true;
    }
`),
  },
};

const go: Templates = {
  header: block(`
package shop

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
)

var rdb = redis.NewClient(&redis.Options{Addr: "localhost:6379"})

var orderID = regexp.MustCompile(\`^[0-9a-f-]{8,}$\`)

var releaseScript = redis.NewScript(\`
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
\`)

type Product struct {
	ID         string   \`json:"id"\`
	Name       string   \`json:"name"\`
	PriceCents int64    \`json:"price_cents"\`
	Tags       []string \`json:"tags"\`
}

type Invoice struct {
	CustomerID string
	Amount     int64
	Currency   string
	DueAt      time.Time
	Paid       bool
}
`),
  footer: '',
  comment: '//',
  blocks: {
    handler: (n) =>
      block(`
// HandleOrderItems${n} lists one page of an order's items.
func HandleOrderItems${n}(w http.ResponseWriter, req *http.Request) {
	id := strings.TrimSpace(req.PathValue("id"))
	if !orderID.MatchString(id) {
		http.Error(w, "invalid order id", http.StatusBadRequest)
		return
	}
	page, err := strconv.Atoi(req.URL.Query().Get("page"))
	if err != nil || page < 1 {
		page = 1
	}
	items, err := loadOrderItems(req.Context(), id, page)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(map[string]any{"orderId": id, "page": page, "items": items}); err != nil {
		fmt.Println("encode:", err)
	}
}
`),
    loop: (n) =>
      block(`
func SummarizeInvoices${n}(invoices []Invoice, currency string) (map[string]int64, int) {
	totals := make(map[string]int64)
	overdue := 0
	now := time.Now()
	for _, invoice := range invoices {
		if invoice.Currency != currency {
			continue
		}
		totals[invoice.CustomerID] += invoice.Amount
		if invoice.DueAt.Before(now) && !invoice.Paid {
			overdue++
		}
	}
	keys := make([]string, 0, len(totals))
	for key := range totals {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	return totals, overdue
}
`),
    strings: (n) =>
      block(`
func FormatAddress${n}(line1, line2, city, postcode, country string) string {
	parts := make([]string, 0, 4)
	for _, part := range []string{line1, line2, city, postcode} {
		if part = strings.Join(strings.Fields(part), " "); part != "" {
			parts = append(parts, part)
		}
	}
	if country == "" {
		country = "gb"
	}
	return fmt.Sprintf("%s (%s)", strings.Join(parts, ", "), strings.ToUpper(country))
}
`),
    cache: (n) =>
      block(`
func GetProductCached${n}(ctx context.Context, productID string) (*Product, error) {
	cacheKey := "cache:product:" + productID
	cached, err := rdb.Get(ctx, cacheKey).Result()
	if err == nil {
		var hit Product
		if json.Unmarshal([]byte(cached), &hit) == nil {
			return &hit, nil
		}
	} else if err != redis.Nil {
		return nil, err
	}
	product, err := loadProduct(ctx, productID)
	if err != nil {
		return nil, err
	}
	payload, _ := json.Marshal(product)
	rdb.Set(ctx, cacheKey, payload, 5*time.Minute)
	return product, nil
}

func InvalidateProduct${n}(ctx context.Context, productID string) error {
	return rdb.Del(ctx, "cache:product:"+productID).Err()
}
`),
    setnxExpire: (n) =>
      block(`
func AcquireImportLock${n}(ctx context.Context, tenantID string) (string, bool, error) {
	lockKey := "lock:import:" + tenantID
	token := uuid.NewString()
	ok, err := rdb.SetNX(ctx, lockKey, token, 0).Result()
	if err != nil || !ok {
		return "", false, err
	}
	rdb.Expire(ctx, lockKey, 30*time.Second)
	return token, true, nil
}
`),
    getCompareDel: (n) =>
      block(`
func ReleaseImportLock${n}(ctx context.Context, lockKey, token string) bool {
	if rdb.Get(ctx, lockKey).Val() == token {
		rdb.Del(ctx, lockKey)
		return true
	}
	return false
}
`),
    constantValue: (n) =>
      block(`
func NightlyReport${n}(ctx context.Context, build func() error) error {
	ok, err := rdb.SetNX(ctx, "lock:nightly-report:${n}", "1", time.Hour).Result()
	if err != nil || !ok {
		return err
	}
	return build()
}
`),
    safeLock: (n) =>
      block(`
func WithLock${n}(ctx context.Context, resource string, work func() error) (bool, error) {
	lockKey := "lock:" + resource
	token := uuid.NewString()
	ok, err := rdb.SetNX(ctx, lockKey, token, 30*time.Second).Result()
	if err != nil || !ok {
		return false, err
	}
	defer releaseScript.Run(ctx, rdb, []string{lockKey}, token)
	return true, work()
}
`),
  },
};

const php: Templates = {
  header: block(`
<?php

declare(strict_types=1);

namespace App\\Http\\Controllers;

use PDO;
use Psr\\Log\\LoggerInterface;
use Redis;
`),
  footer: '',
  comment: '//',
  classOpen: (n) =>
    block(`
final class OrderController${n}
{
    private const RELEASE = <<<'LUA'
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('del', KEYS[1])
end
return 0
LUA;

    public function __construct(
        private Redis $redis,
        private PDO $db,
        private LoggerInterface $logger,
    ) {
    }
`),
  classClose: '}',
  blocks: {
    handler: (n) =>
      block(`
    public function orderItems${n}(array $params, array $query): array
    {
        $orderId = trim((string) ($params['id'] ?? ''));
        if (!preg_match('/^[0-9a-f-]{8,}$/i', $orderId)) {
            return ['status' => 400, 'body' => ['error' => 'invalid order id']];
        }
        $page = max(1, (int) ($query['page'] ?? 1));
        $statement = $this->db->prepare('SELECT sku, quantity, price_cents FROM order_items WHERE order_id = ? LIMIT 50 OFFSET ?');
        $statement->execute([$orderId, ($page - 1) * 50]);
        $items = [];
        foreach ($statement->fetchAll(PDO::FETCH_ASSOC) as $row) {
            $items[] = ['sku' => $row['sku'], 'quantity' => (int) $row['quantity'], 'price' => $row['price_cents'] / 100];
        }
        $this->logger->info('order items listed', ['order' => $orderId, 'count' => count($items)]);
        return ['status' => 200, 'body' => ['orderId' => $orderId, 'page' => $page, 'items' => $items]];
    }
`),
    loop: (n) =>
      block(`
    public function summarizeInvoices${n}(array $invoices, string $currency): array
    {
        $totals = [];
        $overdue = 0;
        $now = time();
        foreach ($invoices as $invoice) {
            if ($invoice['currency'] !== $currency) {
                continue;
            }
            $customer = $invoice['customer_id'];
            $totals[$customer] = ($totals[$customer] ?? 0) + $invoice['amount'];
            if ($invoice['due_at'] < $now && !$invoice['paid']) {
                $overdue++;
            }
        }
        arsort($totals);
        return ['overdue' => $overdue, 'top' => array_slice($totals, 0, 10, true), 'customers' => count($totals)];
    }
`),
    strings: (n) =>
      block(`
    public function formatAddress${n}(array $address): string
    {
        $parts = [];
        foreach (['line1', 'line2', 'city', 'postcode'] as $field) {
            $part = preg_replace('/\\s+/', ' ', trim((string) ($address[$field] ?? '')));
            if ($part !== '') {
                $parts[] = $part;
            }
        }
        $country = strtoupper($address['country'] ?? 'gb');
        return implode(', ', $parts) . " ({$country})";
    }

    public function slugify${n}(string $title): string
    {
        $slug = trim((string) preg_replace('/[^a-z0-9]+/', '-', strtolower($title)), '-');
        return substr($slug, 0, 80);
    }
`),
    cache: (n) =>
      block(`
    public function productCached${n}(string $productId): array
    {
        $cacheKey = "cache:product:{$productId}";
        $cached = $this->redis->get($cacheKey);
        if ($cached !== false) {
            return json_decode($cached, true);
        }
        $statement = $this->db->prepare('SELECT * FROM products WHERE id = ?');
        $statement->execute([$productId]);
        $product = $statement->fetch(PDO::FETCH_ASSOC) ?: [];
        $this->redis->set($cacheKey, json_encode($product), ['ex' => 300]);
        return $product;
    }

    public function invalidateProduct${n}(string $productId): void
    {
        $this->redis->del("cache:product:{$productId}");
    }
`),
    setnxExpire: (n) =>
      block(`
    public function acquireImportLock${n}(string $tenantId): ?string
    {
        $lockKey = "lock:import:{$tenantId}";
        $token = bin2hex(random_bytes(16));
        if ($this->redis->setnx($lockKey, $token)) {
            $this->redis->expire($lockKey, 30);
            return $token;
        }
        return null;
    }
`),
    getCompareDel: (n) =>
      block(`
    public function releaseImportLock${n}(string $lockKey, string $token): bool
    {
        if ($this->redis->get($lockKey) === $token) {
            return $this->redis->del($lockKey) === 1;
        }
        return false;
    }
`),
    constantValue: (n) =>
      block(`
    public function regenerateFeed${n}(callable $build): void
    {
        if (!$this->redis->set('lock:feed:${n}', '1', ['nx', 'ex' => 60])) {
            return;
        }
        $build();
    }
`),
    safeLock: (n) =>
      block(`
    public function withLock${n}(string $resource, callable $work): bool
    {
        $lockKey = "lock:{$resource}";
        $token = bin2hex(random_bytes(16));
        if (!$this->redis->set($lockKey, $token, ['nx', 'px' => 30000])) {
            return false;
        }
        try {
            $work();
        } finally {
            $this->redis->eval(self::RELEASE, [$lockKey, $token], 1);
        }
        return true;
    }
`),
  },
};

const csharp: Templates = {
  header: block(`
using System;
using System.Collections.Generic;
using System.Linq;
using System.Text.Json;
using System.Text.RegularExpressions;
using System.Threading.Tasks;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Extensions.Logging;
using StackExchange.Redis;

namespace Shop.Services;
`),
  footer: '',
  comment: '//',
  classOpen: (n) =>
    block(`
[ApiController]
public sealed class OrderController${n} : ControllerBase
{
    private const string ReleaseScript = @"
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('del', KEYS[1])
end
return 0";

    private readonly IDatabase _db;
    private readonly IOrderStore _orders;
    private readonly ILogger<OrderController${n}> _logger;

    public OrderController${n}(IConnectionMultiplexer redis, IOrderStore orders, ILogger<OrderController${n}> logger)
    {
        _db = redis.GetDatabase();
        _orders = orders;
        _logger = logger;
    }
`),
  classClose: '}',
  blocks: {
    handler: (n) =>
      block(`
    [HttpGet("orders/{id}/items${n}")]
    public async Task<IActionResult> OrderItems${n}(string id, int page = 1)
    {
        var orderId = id.Trim();
        if (!Regex.IsMatch(orderId, "^[0-9a-f-]{8,}$", RegexOptions.IgnoreCase))
        {
            return BadRequest(new { error = "invalid order id" });
        }
        var items = await _orders.ItemsAsync(orderId, Math.Max(1, page), 50);
        var rows = items.Select(item => new { item.Sku, item.Quantity, Price = item.PriceCents / 100m }).ToList();
        _logger.LogInformation("order {OrderId} items listed: {Count}", orderId, rows.Count);
        return Ok(new { orderId, page, items = rows });
    }
`),
    loop: (n) =>
      block(`
    public (Dictionary<string, long> Totals, int Overdue) SummarizeInvoices${n}(IEnumerable<Invoice> invoices, string currency)
    {
        var totals = new Dictionary<string, long>();
        var overdue = 0;
        var now = DateTimeOffset.UtcNow;
        foreach (var invoice in invoices)
        {
            if (invoice.Currency != currency)
            {
                continue;
            }
            totals[invoice.CustomerId] = totals.GetValueOrDefault(invoice.CustomerId) + invoice.Amount;
            if (invoice.DueAt < now && !invoice.Paid)
            {
                overdue++;
            }
        }
        return (totals, overdue);
    }
`),
    strings: (n) =>
      block(`
    public static string FormatAddress${n}(Address address)
    {
        var parts = new[] { address.Line1, address.Line2, address.City, address.Postcode }
            .Where(part => !string.IsNullOrWhiteSpace(part))
            .Select(part => Regex.Replace(part!.Trim(), @"\\s+", " "));
        var country = (address.Country ?? "gb").ToUpperInvariant();
        return $"{string.Join(", ", parts)} ({country})";
    }

    public static string Slugify${n}(string title)
    {
        var slug = Regex.Replace(title.ToLowerInvariant(), "[^a-z0-9]+", "-").Trim('-');
        return slug.Length > 80 ? slug[..80] : slug;
    }
`),
    cache: (n) =>
      block(`
    public async Task<Product?> ProductCached${n}(string productId)
    {
        var cacheKey = $"cache:product:{productId}";
        var cached = await _db.StringGetAsync(cacheKey);
        if (cached.HasValue)
        {
            return JsonSerializer.Deserialize<Product>(cached.ToString());
        }
        var product = await _orders.ProductAsync(productId);
        await _db.StringSetAsync(cacheKey, JsonSerializer.Serialize(product), TimeSpan.FromMinutes(5));
        return product;
    }

    public Task InvalidateProduct${n}(string productId) => _db.KeyDeleteAsync($"cache:product:{productId}");
`),
    setnxExpire: (n) =>
      block(`
    public async Task<string?> AcquireImportLock${n}(string tenantId)
    {
        RedisKey lockKey = $"lock:import:{tenantId}";
        var token = Guid.NewGuid().ToString("N");
        bool acquired = await _db.StringSetAsync(lockKey, token, null, When.NotExists);
        if (acquired)
        {
            await _db.KeyExpireAsync(lockKey, TimeSpan.FromSeconds(30));
            return token;
        }
        return null;
    }
`),
    getCompareDel: (n) =>
      block(`
    public async Task<bool> ReleaseImportLock${n}(string lockKey, string token)
    {
        if (await _db.StringGetAsync(lockKey) == token)
        {
            await _db.KeyDeleteAsync(lockKey);
            return true;
        }
        return false;
    }
`),
    constantValue: (n) =>
      block(`
    public bool TryLockInvoice${n}(string invoiceId)
    {
        return _db.StringSet("lock:invoice:${n}:" + invoiceId, "locked", TimeSpan.FromSeconds(10), When.NotExists);
    }
`),
    safeLock: (n) =>
      block(`
    public async Task<bool> WithLock${n}(string resource, Func<Task> work)
    {
        RedisKey lockKey = $"lock:{resource}";
        var token = Guid.NewGuid().ToString("N");
        if (!await _db.StringSetAsync(lockKey, token, TimeSpan.FromSeconds(30), When.NotExists))
        {
            return false;
        }
        try
        {
            await work();
        }
        finally
        {
            await _db.ScriptEvaluateAsync(ReleaseScript, new RedisKey[] { lockKey }, new RedisValue[] { token });
        }
        return true;
    }
`),
  },
};

const ruby: Templates = {
  header: block(`
# frozen_string_literal: true

require "json"
require "logger"
require "redis"
require "securerandom"
require "time"

RELEASE_SCRIPT = <<~LUA
  if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('del', KEYS[1])
  end
  return 0
LUA
`),
  footer: '',
  comment: '#',
  classOpen: (n) =>
    block(`
class OrderService${n}
  ORDER_ID = /\\A[0-9a-f-]{8,}\\z/i

  def initialize(redis, db, logger: Logger.new($stdout))
    @redis = redis
    @db = db
    @logger = logger
  end
`),
  classClose: 'end',
  blocks: {
    handler: (n) =>
      block(`
  def order_items_${n}(params)
    order_id = params.fetch("id", "").strip
    return [400, { error: "invalid order id" }.to_json] unless ORDER_ID.match?(order_id)

    page = [params.fetch("page", 1).to_i, 1].max
    rows = @db.exec_params(
      "SELECT sku, quantity, price_cents FROM order_items WHERE order_id = $1 LIMIT 50 OFFSET $2",
      [order_id, (page - 1) * 50]
    )
    items = rows.map do |row|
      { sku: row["sku"], quantity: row["quantity"].to_i, price: row["price_cents"].to_f / 100 }
    end
    @logger.info("order #{order_id} items listed: #{items.size}")
    [200, { order_id: order_id, page: page, items: items }.to_json]
  end
`),
    loop: (n) =>
      block(`
  def summarize_invoices_${n}(invoices, currency)
    totals = Hash.new(0)
    overdue = 0
    now = Time.now
    invoices.each do |invoice|
      next unless invoice[:currency] == currency

      totals[invoice[:customer_id]] += invoice[:amount]
      overdue += 1 if invoice[:due_at] < now && !invoice[:paid]
    end
    ranked = totals.sort_by { |_, amount| -amount }
    { overdue: overdue, top: ranked.first(10), customers: totals.size }
  end
`),
    strings: (n) =>
      block(`
  def format_address_${n}(address)
    parts = %i[line1 line2 city postcode].filter_map do |field|
      part = address[field].to_s.strip.squeeze(" ")
      part unless part.empty?
    end
    country = (address[:country] || "gb").upcase
    "#{parts.join(", ")} (#{country})"
  end

  def slugify_${n}(title)
    title.downcase.gsub(/[^a-z0-9]+/, "-").gsub(/\\A-+|-+\\z/, "")[0, 80]
  end
`),
    cache: (n) =>
      block(`
  def product_cached_${n}(product_id)
    cache_key = "cache:product:#{product_id}"
    cached = @redis.get(cache_key)
    return JSON.parse(cached) if cached

    product = @db.exec_params("SELECT * FROM products WHERE id = $1", [product_id]).first
    @redis.set(cache_key, product.to_json, ex: 300)
    product
  end

  def invalidate_product_${n}(product_id)
    @redis.del("cache:product:#{product_id}")
  end
`),
    setnxExpire: (n) =>
      block(`
  def acquire_import_lock_${n}(tenant_id)
    lock_key = "lock:import:#{tenant_id}"
    token = SecureRandom.uuid
    acquired = @redis.setnx(lock_key, token)
    @redis.expire(lock_key, 30) if acquired
    acquired ? token : nil
  end
`),
    getCompareDel: (n) =>
      block(`
  def release_import_lock_${n}(lock_key, token)
    owner = @redis.get(lock_key)
    @redis.del(lock_key) if owner == token
  end
`),
    constantValue: (n) =>
      block(`
  def rebuild_sitemap_${n}
    return unless @redis.set("lock:sitemap:${n}", "locked", nx: true, ex: 60)

    yield
  end
`),
    safeLock: (n) =>
      block(`
  def with_lock_${n}(resource)
    lock_key = "lock:#{resource}"
    token = SecureRandom.uuid
    return false unless @redis.set(lock_key, token, nx: true, px: 30_000)

    begin
      yield
    ensure
      @redis.eval(RELEASE_SCRIPT, keys: [lock_key], argv: [token])
    end
    true
  end
`),
  },
};

const lua: Templates = {
  header: block(`
-- Shop scripts, loaded with SCRIPT LOAD and called with EVALSHA.
local M = {}

local cjson = cjson
local unpack = unpack or table.unpack
`),
  footer: 'return M',
  comment: '--',
  blocks: {
    handler: (n) =>
      block(`
-- KEYS[1]: the rate limit counter, ARGV[1]: limit, ARGV[2]: window in ms
function M.rate_limit_${n}()
  local limit = tonumber(ARGV[1])
  local window = tonumber(ARGV[2])
  local current = redis.call('INCR', KEYS[1])
  if current == 1 then
    redis.call('PEXPIRE', KEYS[1], window)
  end
  if current > limit then
    return { 0, redis.call('PTTL', KEYS[1]) }
  end
  return { 1, limit - current }
end
`),
    loop: (n) =>
      block(`
-- KEYS[1]: the totals hash; ARGV: customer, amount pairs
function M.add_invoices_${n}()
  local added = 0
  for i = 1, #ARGV, 2 do
    local customer = ARGV[i]
    local amount = tonumber(ARGV[i + 1]) or 0
    if amount > 0 then
      redis.call('HINCRBY', KEYS[1], customer, amount)
      added = added + 1
    end
  end
  return added
end
`),
    strings: (n) =>
      block(`
-- KEYS[1]: the slug index; ARGV[1]: title, ARGV[2]: id
function M.index_slug_${n}()
  local slug = string.lower(ARGV[1])
  slug = string.gsub(slug, '[^a-z0-9]+', '-')
  slug = string.gsub(slug, '^-+', '')
  slug = string.gsub(slug, '-+$', '')
  slug = string.sub(slug, 1, 80)
  redis.call('HSET', KEYS[1], slug, ARGV[2])
  return string.format('%s:%s', slug, ARGV[2])
end
`),
    cache: (n) =>
      block(`
-- KEYS[1]: the product cache entry; ARGV[1]: payload, ARGV[2]: ttl in seconds
function M.cache_product_${n}()
  local cached = redis.call('GET', KEYS[1])
  if cached then
    return cached
  end
  redis.call('SET', KEYS[1], ARGV[1], 'EX', tonumber(ARGV[2]))
  return ARGV[1]
end
`),
    setnxExpire: (n) =>
      block(`
-- Counts a page view; the daily total lives under a fixed key.
function M.count_view_${n}()
  redis.call('INCR', KEYS[1])
  return redis.call('INCR', 'stats:views:total:${n}')
end
`),
    getCompareDel: (n) =>
      block(`
-- Drops every session of a user.
function M.drop_sessions_${n}()
  local keys = redis.call('KEYS', 'session:' .. ARGV[1] .. ':*')
  for _, k in ipairs(keys) do
    redis.call('UNLINK', k)
  end
  return #keys
end
`),
    constantValue: (n) =>
      block(`
-- Moves a job to the queue named by the caller.
function M.enqueue_${n}()
  return redis.call('LPUSH', ARGV[1], ARGV[2])
end
`),
    safeLock: (n) =>
      block(`
-- KEYS[1]: the lock; ARGV[1]: owner token (compare-and-delete release)
function M.release_${n}()
  if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('DEL', KEYS[1])
  end
  return 0
end
`),
  },
};

export const TEMPLATES: Record<Language, Templates> = {
  javascript,
  typescript,
  python,
  java,
  go,
  php,
  csharp,
  ruby,
  lua,
};

export interface SourceFile {
  language: Language;
  name: string;
  text: string;
  lines: number;
  /** The rule codes the planted mistakes should produce, sorted. */
  expected: RuleCode[];
}

/** A small seeded PRNG (mulberry32), so every run benchmarks the same files. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const countLines = (text: string) => text.split('\n').length;

/**
 * One file of `language` with exactly `targetLines` lines: the header, then blocks (wrapped in
 * classes of `perClass` blocks where the language needs them), then comment lines up to the
 * exact length, then the footer. `kindOf(b)` picks block b's kind.
 */
function assemble(
  language: Language,
  name: string,
  targetLines: number,
  kindOf: (b: number) => Kind,
  perClass: number,
): SourceFile {
  const t = TEMPLATES[language];
  const parts: string[] = [];
  const expectedCodes: RuleCode[] = [];
  // Parts are joined with newlines, so the file's line count is the sum of theirs.
  let lines = 0;
  const push = (...texts: string[]) => {
    for (const text of texts) {
      parts.push(text);
      lines += countLines(text);
    }
  };
  push(t.header);
  const tail = t.footer ? 1 + countLines(t.footer) : 0;
  const wrapped = !!t.classOpen;
  let inClass = 0;
  for (let b = 0; ; b++) {
    const n = b + 1;
    const kind = kindOf(b);
    const chunk = wrapped && inClass === 0 ? ['', t.classOpen!(n)] : [];
    chunk.push('', t.blocks[kind](n));
    const chunkLines = chunk.reduce((sum, text) => sum + countLines(text), 0);
    if (b > 0 && lines + chunkLines + (wrapped ? 1 : 0) + tail > targetLines) break;
    push(...chunk);
    expectedCodes.push(...expected(language, kind));
    if (wrapped && ++inClass === perClass) {
      push(t.classClose!);
      inClass = 0;
    }
  }
  if (wrapped && inClass > 0) push(t.classClose!);
  // Up to the exact length with a comment block (a changelog, say) before the footer.
  const pad = targetLines - lines - tail;
  if (pad > 0) push('');
  for (let i = 1; i < pad; i++) push(`${t.comment} changelog ${i}: reviewed for the ${name} release`);
  if (t.footer) push('', t.footer);
  const text = `${parts.join('\n')}\n`;
  // A .lua file is one script, and LOCK007 is reported once per script.
  const codes = language === 'lua' ? [...new Set(expectedCodes)] : expectedCodes;
  return { language, name, text, lines: countLines(text) - 1, expected: codes.sort() };
}

/**
 * The big file of one language: `lines` lines, ordinary code with one lock mistake (the three
 * kinds in turn) and one correct lock in every 40 blocks.
 */
export function bigFile(language: Language, lines = 10_000): SourceFile {
  const kindOf = (b: number): Kind => {
    if (b % 40 === 13) return MISTAKES[Math.floor(b / 40) % MISTAKES.length];
    if (b % 40 === 33) return 'safeLock';
    return ORDINARY[b % ORDINARY.length];
  };
  return assemble(language, `big.${EXTENSION[language]}`, lines, kindOf, 12);
}

/**
 * A workspace of `count` files of 50 to 400 lines, languages drawn at random; `mistakeShare`
 * of them hold one lock mistake, as many again one correct lock.
 */
export function workspace(count: number, seed = 5, mistakeShare = 0.1): SourceFile[] {
  const next = random(seed);
  const files: SourceFile[] = [];
  for (let i = 0; i < count; i++) {
    const language = LANGUAGES[Math.floor(next() * LANGUAGES.length)];
    const target = 50 + Math.floor(next() * 351);
    const mistake = next() < mistakeShare ? MISTAKES[Math.floor(next() * MISTAKES.length)] : undefined;
    const safe = next() < mistakeShare;
    const offset = Math.floor(next() * ORDINARY.length);
    const kindOf = (b: number): Kind => {
      if (b === 1 && mistake) return mistake;
      if (b === 2 && safe) return 'safeLock';
      return ORDINARY[(b + offset) % ORDINARY.length];
    };
    const dir = ['api', 'jobs', 'billing', 'catalog', 'accounts'][i % 5];
    files.push(assemble(language, `${dir}/module${i}.${EXTENSION[language]}`, target, kindOf, 6));
  }
  return files;
}
