/**
 * A TCP relay in front of a server (a NATS server, for a Dwell node's state connection): what the
 * client sends is passed on at once and kept for the test to read (`sent`); what the server
 * answers can be held back (`hold`) and let through later in the order it came (`release`). A
 * test uses it to put a node a known step behind the cluster: the node's requests go out, the
 * cluster's answers and watch messages wait, with no timer involved.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpTap {
  /** `nats://127.0.0.1:PORT` (or the given scheme) of the relay. */
  url: string;
  /** Everything the clients have sent so far, as latin1 text. */
  sent(): string;
  /** From now on the server's bytes wait in the relay. */
  hold(): void;
  /** Lets the waiting bytes through, in order, and stops holding. */
  release(): void;
  close(): Promise<void>;
}

export async function tcpTap(upstream: { host: string; port: number }, scheme = 'nats'): Promise<TcpTap> {
  const chunks: string[] = [];
  const pipes: Array<{ flush(): void; down: net.Socket; up: net.Socket }> = [];
  let holding = false;
  const server = net.createServer((down) => {
    const up = net.connect(upstream);
    const waiting: Buffer[] = [];
    down.on('data', (b) => { chunks.push(b.toString('latin1')); up.write(b); });
    up.on('data', (b) => { if (holding) waiting.push(b); else down.write(b); });
    const end = () => { down.destroy(); up.destroy(); };
    down.on('error', end).on('close', end);
    up.on('error', end).on('close', end);
    pipes.push({ down, up, flush: () => { for (const b of waiting.splice(0)) down.write(b); } });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent: () => chunks.join(''),
    hold: () => { holding = true; },
    release: () => { holding = false; for (const p of pipes) p.flush(); },
    async close() {
      for (const p of pipes) { p.down.destroy(); p.up.destroy(); }
      await new Promise((r) => server.close(r));
    },
  };
}
