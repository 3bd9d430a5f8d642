package io.loopdiag.apps;

import java.time.Duration;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Reactor: a {@code Mono.fromCallable} whose callable sleeps {@value #LOOKUP_MILLIS} ms, subscribed
 * on {@code Schedulers.parallel()}, whose threads ({@code parallel-N}) must never block; main
 * blocks on it, as main may. Then the healthy pipeline: the same lookup subscribed on
 * {@code boundedElastic()}, the scheduler for blocking work, followed by a non-blocking
 * {@code delayElement} on parallel.
 */
final class ReactorBlocking {
    static final String NAME = "reactor-blocking";
    static final String DESCRIPTION = "Reactor Mono that sleeps 200 ms on the parallel scheduler; the same on boundedElastic";
    static final long LOOKUP_MILLIS = 200;
    private static final Duration DELAY = Duration.ofMillis(20);
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final String RATE = "1.0842";

    private ReactorBlocking() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        try {
            String blocking = Mono.fromCallable(ReactorBlocking::lookUpRate)
                    .subscribeOn(Schedulers.parallel())
                    .block(TIMEOUT);
            String healthy = Mono.fromCallable(ReactorBlocking::lookUpRateOnBoundedElastic)
                    .subscribeOn(Schedulers.boundedElastic())
                    .delayElement(DELAY)
                    .block(TIMEOUT);
            if (!RATE.equals(blocking) || !RATE.equals(healthy)) {
                throw new IllegalStateException("the lookups returned " + blocking + " and " + healthy);
            }
        } finally {
            Schedulers.shutdownNow();
        }
        return Main.done(NAME);
    }

    /** The bug: a blocking lookup on a parallel thread, which the scheduler has only as many of as cores. */
    private static String lookUpRate() throws InterruptedException {
        Thread.sleep(LOOKUP_MILLIS);
        return RATE;
    }

    /** The same lookup on boundedElastic, where blocking is what its threads are for: nothing may be reported. */
    private static String lookUpRateOnBoundedElastic() throws InterruptedException {
        Thread.sleep(LOOKUP_MILLIS);
        return RATE;
    }
}
