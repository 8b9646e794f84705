/**
 * From measured per-request costs to a fleet size: how many Dwell nodes and NATS servers a rate
 * needs. Pure arithmetic; every assumption is a named input so the report can print it beside
 * the table. The costs are per answered /v1/detect request of bench:http's mix.
 */
import { fmtInt, markdownTable } from './table.js';

export interface MeasuredCosts {
  /** Replicas the NATS costs were measured with (their servers summed): 1, or 3 on a three-server cluster. */
  measuredReplicas: number;
  /** CPU ms a node spends per request (all threads), and of it on its event-loop thread. */
  nodeCpuMs: number;
  nodeMainMs: number;
  /** CPU ms the (single, R1) nats-server spent per request. */
  natsCpuMs: number;
  /** Bytes into and out of the nats-server per request (client traffic, R1). */
  natsInBytes: number;
  natsOutBytes: number;
  /** Bytes the nats-server wrote to disk per request (R1). */
  natsDiskBytes: number;
  /**
   * The fan-out: what each node beyond the first adds per request (watch deliveries to every
   * node), the slope measured over 1, 2 and 4 nodes (cluster-fanout.ts); absent when one node
   * count was measured.
   */
  perExtraNode?: { natsOutBytes: number; natsCpuMs: number };
}

export interface FleetAssumptions {
  nodeCores: number;
  /** Share of a node's cores used at the planned rate (the benchmark's open loop runs at 70 % of peak). */
  nodeUtilisation: number;
  natsCores: number;
  natsUtilisation: number;
  /** Replicas of every bucket and stream (R3 in production): each write is stored by this many servers. */
  replicas: number;
  /** Network a NATS server may use, bytes/s (in + out). */
  natsNetBytesPerS: number;
  /** Sustained disk writes a NATS server may do, bytes/s. */
  natsDiskBytesPerS: number;
  /** Fewest NATS servers (R3 needs three). */
  natsMin: number;
}

export const DEFAULT_FLEET: FleetAssumptions = {
  nodeCores: 8,
  nodeUtilisation: 0.7,
  natsCores: 8,
  natsUtilisation: 0.5,
  replicas: 3,
  natsNetBytesPerS: 10e9 / 8 / 2, // half of a 10 Gbit/s NIC
  natsDiskBytesPerS: 125 * 2 ** 20, // AWS EBS gp3 baseline throughput, 125 MiB/s
  natsMin: 3,
};

export interface Fleet {
  rate: number;
  /** Requests/s one node carries: the lower of its cores' bound and its event-loop thread's. */
  perNode: number;
  nodes: number;
  natsByCpu: number;
  natsByNet: number;
  natsByDisk: number;
  nats: number;
}

export function fleetFor(rate: number, c: MeasuredCosts, a: FleetAssumptions = DEFAULT_FLEET): Fleet {
  const byCores = (a.nodeCores * a.nodeUtilisation * 1000) / c.nodeCpuMs;
  const byMain = (a.nodeUtilisation * 1000) / c.nodeMainMs;
  const perNode = Math.min(byCores, byMain);
  // Costs measured at R1 scaled to R replicas: every server of a stream's group stores and
  // acknowledges each write; reads and watch deliveries are served once, so scaling all of the
  // R1 cost overstates. Costs measured at R3 (summed over the servers) are taken as they are.
  const k = a.replicas / c.measuredReplicas;
  const nodes = Math.ceil(rate / perNode);
  const extra = Math.max(0, nodes - 1);
  // The NATS CPU slope is not added: measured at this machine's rates it is mostly the nodes' costs a second
  // (lease checks, polls, heartbeats), which a fleet's rate spreads thin; the bytes are a request's.
  const natsCpuS = (rate * c.natsCpuMs * k) / 1000;
  const netBytes = rate * (c.natsInBytes * k + c.natsOutBytes + (c.perExtraNode?.natsOutBytes ?? 0) * extra);
  const diskBytes = rate * c.natsDiskBytes * k;
  const natsByCpu = Math.ceil(natsCpuS / (a.natsCores * a.natsUtilisation));
  const natsByNet = Math.ceil(netBytes / a.natsNetBytesPerS);
  const natsByDisk = Math.ceil(diskBytes / a.natsDiskBytesPerS);
  return {
    rate, perNode, nodes,
    natsByCpu, natsByNet, natsByDisk, nats: Math.max(a.natsMin, natsByCpu, natsByNet, natsByDisk),
  };
}

const orDash = (n: number) => (Number.isFinite(n) ? String(n) : '–');

export function projectionTable(rates: readonly number[], sets: ReadonlyArray<[string, MeasuredCosts]>, a: FleetAssumptions = DEFAULT_FLEET): string {
  const rows = sets.flatMap(([label, c]) => rates.map((r) => fleetFor(r, c, a)).map((f) => [
    label, fmtInt(f.rate), fmtInt(f.perNode), orDash(f.nodes), orDash(f.natsByCpu), orDash(f.natsByNet), orDash(f.natsByDisk), `**${orDash(f.nats)}**`,
  ]));
  return markdownTable(
    ['costs', 'req/s', 'req/s per node', `Dwell nodes (${a.nodeCores} cores)`, 'NATS servers by CPU', 'by network', 'by disk', 'NATS servers'],
    rows, ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
  );
}

export function assumptionLines(sets: ReadonlyArray<[string, MeasuredCosts]>, a: FleetAssumptions = DEFAULT_FLEET): string[] {
  const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '–');
  const kb = (x: number) => (Number.isFinite(x) ? (x / 1024).toFixed(1) : '–');
  return [
    ...sets.map(([label, c]) => `- ${label}, medians measured here: a node spends ${ms(c.nodeCpuMs)} CPU ms per request, ` +
      `${ms(c.nodeMainMs)} of it on its event-loop thread; the NATS server${c.measuredReplicas > 1 ? `s together (R${c.measuredReplicas})` : ' (R1)'} ${ms(c.natsCpuMs)} CPU ms, ${kb(c.natsInBytes)} KiB in, ` +
      `${kb(c.natsOutBytes)} KiB out and ${kb(c.natsDiskBytes)} KiB written to disk per request.`),
    `- A node has ${a.nodeCores} cores used to ${Math.round(a.nodeUtilisation * 100)} % (where the p99 target is measured); CPU per request does not change with the core count ` +
      `(one detection worker per core); its event-loop thread, one per node, caps it at ${Math.round(a.nodeUtilisation * 100)} % of 1000 ÷ its ms per request.`,
    `- A NATS server has ${a.natsCores} cores used to ${Math.round(a.natsUtilisation * 100)} % (headroom to absorb a lost server's share). ` +
      (sets.every(([, c]) => c.measuredReplicas === a.replicas)
        ? `R${a.replicas} as measured. `
        : `R${a.replicas}: costs measured at R1 have their server CPU, bytes in and disk bytes counted ${a.replicas} times (every replica stores every write; reads and ` +
          `watch deliveries are counted ${a.replicas} times too, which overstates). `) + `At least ${a.natsMin} servers.`,
    `- Network: ${fmtInt(a.natsNetBytesPerS / 2 ** 20)} MiB/s a server (half of a 10 Gbit/s NIC). Disk: ${fmtInt(a.natsDiskBytesPerS / 2 ** 20)} MiB/s a server ` +
      `(AWS EBS gp3 baseline throughput, AWS EBS documentation "General Purpose SSD volumes").`,
    ...sets.map(([label, c]) => (c.perExtraNode
      ? `- ${label}, the fan-out, measured: every node beyond the first adds ${fmtInt(c.perExtraNode.natsOutBytes)} B from NATS ` +
        'per request (the slope over 1, 2 and 4 nodes, floored at 0: every node takes the learned values\' changes, one message a window, so every change\'s bytes once a node); ' +
        `the table adds it for its fleet's nodes ("by network"). The NATS CPU slope, ${ms(c.perExtraNode.natsCpuMs)} ms per request and node here, is not added: at the rates ` +
        'measured here it is mostly what each node costs a second whatever its requests (lease checks, store polls, watch heartbeats; the idle column above), which 10k–100k req/s spread thin.'
      : `- ${label}: one node count measured, no fan-out term.`)),
    '- Not measured: a three-server cluster\'s replication round trip (it adds to every write\'s latency, not to the counts); the slope beyond 4 nodes (taken as straight); KV state grows with users.',
  ];
}
