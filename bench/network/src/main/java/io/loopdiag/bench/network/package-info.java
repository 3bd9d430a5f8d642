/**
 * Whole-process network benchmarks: the Netty peers of loop-core's {@code echo-server} and
 * {@code http-server}, the echo load client, and the report of a wrk run, each a subcommand of
 * {@code bench-network.jar} ({@link io.loopdiag.bench.network.Main}). {@code bench/network/run.sh}
 * runs every subject under the same load and prints one JSON line per measurement.
 */
package io.loopdiag.bench.network;
