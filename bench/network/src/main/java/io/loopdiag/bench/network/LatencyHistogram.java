package io.loopdiag.bench.network;

/**
 * Counts of round-trip times in log-linear buckets, in the manner of HdrHistogram: values below
 * {@code 2 * SUB_BUCKETS} ns are counted exactly; above, each power of two is cut into
 * {@code SUB_BUCKETS} equal buckets, so a percentile is known to within 1/128 (0.8%) of its value.
 * Recording is an array increment, cheap enough for every message. One thread only.
 */
final class LatencyHistogram {
    private static final int SUB_BUCKET_BITS = 7;
    private static final int SUB_BUCKETS = 1 << SUB_BUCKET_BITS;
    /** Up to 2^40 ns (18 minutes): far past any round trip; longer ones land in the last bucket. */
    private static final int MAX_MAGNITUDE = 40;
    private static final int BUCKETS = 2 * SUB_BUCKETS + (MAX_MAGNITUDE - SUB_BUCKET_BITS - 1) * SUB_BUCKETS;

    private final long[] counts = new long[BUCKETS];
    private long total;

    void record(long nanos) {
        counts[index(Math.max(0, nanos))]++;
        total++;
    }

    void reset() {
        java.util.Arrays.fill(counts, 0);
        total = 0;
    }

    long count() {
        return total;
    }

    /**
     * The nearest-rank percentile (the smallest recorded value with at least {@code percentile}%
     * of the values at or below it), as the middle of its bucket, in nanoseconds; NaN when empty.
     */
    double percentileNanos(double percentile) {
        if (total == 0) {
            return Double.NaN;
        }
        long rank = Math.max(1, (long) Math.ceil(percentile / 100.0 * total));
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return middleOf(i);
            }
        }
        return middleOf(counts.length - 1);
    }

    static int index(long value) {
        if (value < 2 * SUB_BUCKETS) {
            return (int) value;
        }
        int magnitude = 63 - Long.numberOfLeadingZeros(value); // >= SUB_BUCKET_BITS + 1
        if (magnitude >= MAX_MAGNITUDE) {
            return BUCKETS - 1;
        }
        int shift = magnitude - SUB_BUCKET_BITS;
        int top = (int) (value >>> shift); // in [SUB_BUCKETS, 2 * SUB_BUCKETS)
        return 2 * SUB_BUCKETS + (shift - 1) * SUB_BUCKETS + (top - SUB_BUCKETS);
    }

    /** The lowest value counted in bucket {@code index}. */
    static long lowestOf(int index) {
        if (index < 2 * SUB_BUCKETS) {
            return index;
        }
        int shift = (index - 2 * SUB_BUCKETS) / SUB_BUCKETS + 1;
        long top = SUB_BUCKETS + (index - 2 * SUB_BUCKETS) % SUB_BUCKETS;
        return top << shift;
    }

    static double middleOf(int index) {
        if (index < 2 * SUB_BUCKETS) {
            return index;
        }
        int shift = (index - 2 * SUB_BUCKETS) / SUB_BUCKETS + 1;
        return lowestOf(index) + ((1L << shift) - 1) / 2.0;
    }
}
