package io.loopdiag.agent;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * How late a loop's units of work start, counted in buckets of microseconds: 16 buckets per power
 * of two (each about 6% wide), from 0 to about 13 days. Written by one thread, the loop's (its lag
 * probe runs there), read by others: recording is an index computation and one ordered store, no
 * lock, no allocation. The counts only grow; a reader takes {@link #snapshot}s and compares two to
 * see an interval ({@link #between}).
 */
final class LagHistogram {
    private static final int SUB_BITS = 4;
    private static final int SUB = 1 << SUB_BITS;
    /** Octaves past the linear start: values up to 2^40 us. */
    private static final int OCTAVES = 40 - SUB_BITS;
    static final int BUCKETS = SUB + OCTAVES * SUB;
    private static final VarHandle COUNT = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] counts = new long[BUCKETS];

    /** Counts a lag of {@code nanos}; on the one thread that writes. */
    void record(long nanos) {
        int bucket = bucket(Math.max(0, nanos) / 1_000);
        COUNT.setRelease(counts, bucket, (long) COUNT.getOpaque(counts, bucket) + 1);
    }

    /** The counts now, for any reader. */
    long[] snapshot() {
        long[] copy = new long[BUCKETS];
        for (int i = 0; i < BUCKETS; i++) {
            copy[i] = (long) COUNT.getAcquire(counts, i);
        }
        return copy;
    }

    /** The bucket of {@code micros}: its value below 16, else its power of two and the next 4 bits. */
    static int bucket(long micros) {
        if (micros < SUB) {
            return (int) micros;
        }
        int octave = 63 - Long.numberOfLeadingZeros(micros);
        int sub = (int) (micros >>> (octave - SUB_BITS)) & (SUB - 1);
        return Math.min(BUCKETS - 1, SUB + (octave - SUB_BITS) * SUB + sub);
    }

    /** The largest value, in microseconds, that falls in {@code bucket}. */
    static long highest(int bucket) {
        if (bucket < SUB) {
            return bucket;
        }
        int shift = (bucket - SUB) / SUB;
        long lowest = (long) (SUB + (bucket - SUB) % SUB) << shift;
        return lowest + (1L << shift) - 1;
    }

    /**
     * What was counted from {@code before} to {@code after} (two snapshots, or null for none before):
     * how many, and the 50th and 99th percentiles and the maximum, each as its bucket's highest
     * value (so never below the truth, and at most 6% above it), in microseconds.
     */
    static Summary between(long[] before, long[] after) {
        long total = 0;
        long[] delta = new long[BUCKETS];
        for (int i = 0; i < BUCKETS; i++) {
            delta[i] = after[i] - (before != null ? before[i] : 0);
            total += delta[i];
        }
        if (total == 0) {
            return new Summary(0, 0, 0, 0);
        }
        long p50 = -1;
        long p99 = -1;
        long max = 0;
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++) {
            if (delta[i] == 0) {
                continue;
            }
            seen += delta[i];
            if (p50 < 0 && seen * 2 >= total) {
                p50 = highest(i);
            }
            if (p99 < 0 && seen * 100 >= total * 99) {
                p99 = highest(i);
            }
            max = highest(i);
        }
        return new Summary(total, p50, p99, max);
    }

    /** An interval's lags: their count, and their median, 99th percentile and maximum in microseconds. */
    record Summary(long count, long p50Micros, long p99Micros, long maxMicros) {
    }
}
