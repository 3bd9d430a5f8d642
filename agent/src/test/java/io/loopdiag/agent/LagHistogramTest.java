package io.loopdiag.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The lag histogram's buckets, and the percentiles of an interval between two snapshots. */
class LagHistogramTest {

    @Test
    void everyValueFallsInABucketNoMoreThanSixPercentWideThatHoldsIt() {
        for (long micros : new long[] {0, 1, 15, 16, 17, 31, 32, 100, 1_000, 12_345, 200_000, 3_600_000_000L}) {
            int bucket = LagHistogram.bucket(micros);
            long highest = LagHistogram.highest(bucket);
            assertTrue(highest >= micros, micros + " is at most its bucket's highest, " + highest);
            assertTrue(highest <= micros + Math.max(0, micros / 16), micros + " is within 1/16 of its bucket's highest, " + highest);
            assertTrue(bucket == 0 || LagHistogram.highest(bucket - 1) < micros, micros + " is above the bucket below");
        }
        assertEquals(LagHistogram.BUCKETS - 1, LagHistogram.bucket(Long.MAX_VALUE / 1_000), "past the range: the last bucket");
    }

    @Test
    void anIntervalsPercentilesAreOfWhatWasRecordedInIt() {
        LagHistogram lag = new LagHistogram();
        for (int i = 0; i < 1_000; i++) {
            lag.record(5_000_000); // 5 ms, before the interval
        }
        long[] before = lag.snapshot();
        for (int i = 0; i < 98; i++) {
            lag.record(100_000); // 0.1 ms
        }
        lag.record(20_000_000); // 20 ms
        lag.record(200_000_000); // 200 ms
        LagHistogram.Summary summary = LagHistogram.between(before, lag.snapshot());
        assertEquals(100, summary.count());
        assertEquals(LagHistogram.highest(LagHistogram.bucket(100)), summary.p50Micros());
        assertEquals(LagHistogram.highest(LagHistogram.bucket(20_000)), summary.p99Micros(), "the 99th of 100 is the 20 ms one");
        assertEquals(LagHistogram.highest(LagHistogram.bucket(200_000)), summary.maxMicros());
        assertEquals(new LagHistogram.Summary(0, 0, 0, 0), LagHistogram.between(lag.snapshot(), lag.snapshot()), "nothing since");
    }
}
