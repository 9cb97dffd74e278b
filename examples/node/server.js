#!/usr/bin/env node
// Quire's sync service inside a Node server: node:http passes each request to the library
// through a tiny N-API addon (quire_sync.c) and its asynchronous handler, which answers on a
// library thread; the answer comes back to the event loop, which never blocks (a long poll
// holds no thread). No rule of the protocol is here: this file moves bytes between node:http
// and the library, as examples/python/sync_server.py and examples/go/main.go do.
//
//   make -C examples/node        # builds quire_sync.node against build/ (pkg-config)
//   LD_LIBRARY_PATH=build/lib node examples/node/server.js --port 8412 \
//       --store sqlite://quire.db --public-key jwt-public.pem --admin-token-file admin-token
//
// It takes quire-server's flags. SIGTERM or Ctrl-C: long polls answer, then it exits.
// HTTP itself (framing, keep-alive, header limits) is node:http's: a request it refuses never
// reaches the library and gets node's own answer.
'use strict';

const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');
const quire = require(process.env.QUIRE_NODE_ADDON || path.join(__dirname, 'quire_sync.node'));

function parseArgs(argv) {
  const o = { host: process.env.QUIRE_HOST || '127.0.0.1', port: Number(process.env.QUIRE_PORT || 8412),
    store: process.env.QUIRE_STORE || 'sqlite://quire.db', publicKeys: [], maxBodyBytes: 0, maxUploadBytes: 0,
    maxAttachmentBytes: 0, maxListeners: 0 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    switch (flag) {
      case '--host': o.host = value; break;
      case '--port': o.port = Number(value); break;
      case '--store': o.store = value; break;
      case '--public-key': o.publicKeys.push(fs.readFileSync(value, 'utf8')); break;
      case '--jwks': o.jwks = fs.readFileSync(value, 'utf8'); break;
      case '--admin-token-file': o.adminToken = fs.readFileSync(value, 'utf8').trim(); break;
      case '--max-body-bytes': o.maxBodyBytes = Number(value); break;
      case '--max-upload-bytes': o.maxUploadBytes = Number(value); break;
      case '--max-attachment-bytes': o.maxAttachmentBytes = Number(value); break;
      case '--max-listeners': o.maxListeners = Number(value); break;
      case '--attachment-grace-seconds': o.attachmentGraceSeconds = Number(value); break;
      default: throw new Error(`unknown flag ${flag}`);
    }
  }
  if (o.adminToken === undefined && process.env.QUIRE_ADMIN_TOKEN) o.adminToken = process.env.QUIRE_ADMIN_TOKEN;
  return o;
}

const options = parseArgs(process.argv.slice(2));
const service = quire.open(options);
// Past the largest body the library takes, one byte is enough for it to answer 413.
const readLimit = Math.max(options.maxUploadBytes || 256 << 20, options.maxBodyBytes || 8 << 20,
  options.maxAttachmentBytes || 8 << 20) + 1;
let pending = 0;

const server = http.createServer({ maxHeaderSize: 256 * 1024 + 4096 }, (req, res) => {
  const started = process.hrtime.bigint();
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    if (size < readLimit) chunks.push(chunk.subarray(0, readLimit - size));
    size += chunk.length;
  });
  req.on('end', () => {
    const headers = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2) headers.push([req.rawHeaders[i], req.rawHeaders[i + 1]]);
    pending++;
    const call = quire.handle(service, req.method, req.url, headers, Buffer.concat(chunks), (status, out, body) => {
      pending--;
      const id = (out.find(([n]) => n.toLowerCase() === 'x-request-id') || [])[1] || '-';
      if (!res.destroyed) {
        const kept = out.filter(([n]) => !['content-length', 'connection', 'transfer-encoding'].includes(n.toLowerCase()));
        if (status !== 204 && status !== 304) kept.push(['Content-Length', String(body.length)]);
        res.writeHead(status, kept.flat());
        res.end(req.method === 'HEAD' || status === 204 || status === 304 ? undefined : body);
      }
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      process.stderr.write(`${req.socket.remoteAddress} ${req.method} ${req.url.slice(0, 200)} ${status} ${body.length} ${ms.toFixed(1)}ms id=${id}\n`);
    });
    // The client went away before the answer: the library stops waiting for it.
    res.on('close', () => { if (!res.writableFinished) quire.cancel(call); });
  });
});

// QUIRE_NODE_LAG_FILE: the event loop's delay while serving (perf_hooks), written there as
// JSON at exit (bench/node_lag.py).
const lag = process.env.QUIRE_NODE_LAG_FILE ? require('node:perf_hooks').monitorEventLoopDelay({ resolution: 1 }) : null;

function stop() {
  quire.shutdown(service); // long polls answer now
  server.close();
  const done = () => {
    if (pending > 0) return setTimeout(done, 10);
    quire.close(service);
    if (lag) {
      const ms = (ns) => ns / 1e6;
      fs.writeFileSync(process.env.QUIRE_NODE_LAG_FILE, JSON.stringify({ p50: ms(lag.percentile(50)),
        p99: ms(lag.percentile(99)), max: ms(lag.max), samples: lag.count }));
    }
    process.exit(0);
  };
  done();
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
server.listen(options.port, options.host, () => {
  if (lag) lag.enable();
  console.log(`listening on http://${options.host}:${server.address().port}`);
});
