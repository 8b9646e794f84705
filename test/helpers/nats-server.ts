/**
 * The tests' NATS servers: the development kit's launcher (src/devkit/nats-server.ts), shared with
 * the benchmarks: real `nats-server` processes with JetStream on free loopback ports, owned by the
 * test that starts them.
 */
export { NATS_SERVER, freePort, startNatsCluster, type NatsCluster, type NatsNode } from '../../src/devkit/nats-server.js';
