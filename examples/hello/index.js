// A small Node app for the hostsync demo: edit this file while `npm start` runs
// and watch the deployment pick it up.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';

const port = Number(process.env.SERVER_PORT ?? 3000);
const greeting = 'Hello from hostsync';

const server = createServer(async (req, res) => {
  if (req.url === '/style.css') {
    res.writeHead(200, { 'content-type': 'text/css' });
    res.end(await readFile(new URL('./public/style.css', import.meta.url)));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html>
<html>
  <head><title>${greeting}</title><link rel="stylesheet" href="/style.css"></head>
  <body><h1>${greeting}</h1><p>Served at ${new Date().toISOString()}</p></body>
</html>
`);
});

server.listen(port, '0.0.0.0', () => console.log(`hello app listening on ${port}`));
