// A minimal web app: it listens on SERVER_PORT (the port the service gives it) and
// answers every path with a small page.
const { createServer } = require('node:http');

const port = Number(process.env.SERVER_PORT ?? 3000);

createServer((req, res) => {
  if (req.url === '/healthz') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok\n');
    return;
  }
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end('<!doctype html><html><head><title>Web example</title></head><body><h1>Web example</h1></body></html>\n');
}).listen(port, '0.0.0.0', () => console.log(`web example listening on ${port}`));
