/**
 * The tests' NATS servers: the launcher the benchmarks use too (bench/lib/nats-server.ts), real
 * `nats-server` processes with JetStream on free loopback ports, owned by the test that starts them.
 */
export { NATS_SERVER, freePort, startNatsCluster, type NatsCluster, type NatsNode } from '../../bench/lib/nats-server.js';
