// The raw ZeroMQ transfer the distributed store is compared with, same topology and bytes: 2
// ROUTER "servers" that answer every request with as many bytes as it carried, and 2 DEALER
// "clients" that each send half of BENCH_BYTES to each server and wait for both answers
// (push + pull of a model split over 2 servers). Run as `node zmq-raw.mjs server PORT` or
// `node zmq-raw.mjs client PORT0 PORT1`; a client prints `TIMES [..ms]`.
import { Dealer, Router } from 'zeromq';

const [role, ...ports] = process.argv.slice(2);
const bytes = Number(process.env.BENCH_BYTES ?? 1e6);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
if (role === 'server') {
  const sock = new Router();
  await sock.bind(`tcp://127.0.0.1:${ports[0]}`);
  const answer = Buffer.alloc(bytes / 2);
  let stops = 0;
  for await (const [id, head, body] of sock) {
    if (String(head) === 'stop') {
      if (++stops === 2) break; // both clients are done
      continue;
    }
    await sock.send([id, head, answer.subarray(0, body.length)]);
  }
  sock.close();
} else {
  const socks = ports.map((p) => {
    const s = new Dealer();
    s.connect(`tcp://127.0.0.1:${p}`);
    return s;
  });
  const payload = Buffer.alloc(bytes / 2, 1);
  const times = [];
  for (let r = 0; r < rounds + 1; r++) {
    const t0 = performance.now();
    await Promise.all(socks.map((s) => s.send(['x', payload])));
    await Promise.all(socks.map((s) => s.receive()));
    if (r > 0) times.push(performance.now() - t0);
  }
  console.log(`TIMES ${JSON.stringify(times)}`);
  for (const s of socks) {
    await s.send(['stop', '']);
    s.close();
  }
}
