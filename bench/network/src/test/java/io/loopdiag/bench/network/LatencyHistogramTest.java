package io.loopdiag.bench.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class LatencyHistogramTest {
    @Test
    void smallValuesAreCountedExactly() {
        LatencyHistogram histogram = new LatencyHistogram();
        for (int nanos = 1; nanos <= 100; nanos++) {
            histogram.record(nanos);
        }
        assertEquals(100, histogram.count());
        assertEquals(50.0, histogram.percentileNanos(50));
        assertEquals(99.0, histogram.percentileNanos(99));
        assertEquals(1.0, histogram.percentileNanos(0));
    }

    @Test
    void percentilesOfLargeValuesAreWithinOnePercent() {
        LatencyHistogram histogram = new LatencyHistogram();
        long[] values = new Random(42).longs(100_000, 1_000, 50_000_000).sorted().toArray();
        for (int i = values.length - 1; i >= 0; i--) {
            histogram.record(values[i]);
        }
        for (double percentile : new double[] {1, 50, 90, 99, 99.9}) {
            long exact = values[(int) Math.ceil(percentile / 100 * values.length) - 1];
            double measured = histogram.percentileNanos(percentile);
            assertTrue(Math.abs(measured - exact) <= exact / 100.0,
                    "p" + percentile + ": " + measured + " vs exact " + exact);
        }
    }

    @Test
    void bucketsAreContiguousAndOrdered() {
        long previousLowest = -1;
        for (int index = 0; index < 4000; index++) {
            long lowest = LatencyHistogram.lowestOf(index);
            assertTrue(lowest > previousLowest, "bucket " + index);
            assertEquals(index, LatencyHistogram.index(lowest), "lowest value of bucket " + index);
            if (index > 0) {
                assertEquals(index - 1, LatencyHistogram.index(lowest - 1), "the value before bucket " + index);
            }
            previousLowest = lowest;
        }
    }

    @Test
    void resetForgetsEverything() {
        LatencyHistogram histogram = new LatencyHistogram();
        histogram.record(5_000_000);
        histogram.reset();
        assertEquals(0, histogram.count());
        assertTrue(Double.isNaN(histogram.percentileNanos(50)));
        histogram.record(7);
        assertEquals(7.0, histogram.percentileNanos(99));
    }
}
