package io.loopdiag.bench.network;

import io.netty.channel.EventLoopGroup;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingMethod;
import reactor.blockhound.BlockingOperationError;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * BlockHound in a Netty peer's JVM, the peer of the loopdiag agent: installed with every
 * integration its ServiceLoader finds (Netty's own, {@code NettyBlockHoundIntegration} in
 * netty-common, makes Netty's event-loop threads non-blocking and allows Netty's own blocking).
 * The JVM needs {@code -XX:+AllowRedefinitionToAddDeleteMethods} (JDK 13+) and
 * {@code -Djdk.attach.allowAttachSelf=true}, with which BlockHound attaches to its own JVM.
 *
 * <p>Two modes. {@link Mode#THROW} does what BlockHound's default callback does, a blocking call
 * on a non-blocking thread throws {@link BlockingOperationError} at the call, and counts each
 * ({@link #caughtCount}): the JDK may turn that error into another exception on its way out (an
 * {@code IllegalMonitorStateException} from a lock the error left unlocked), so the count is what
 * says BlockHound caught a call. {@link Mode#LOG} prints one
 * {@code blockhound: blocking call ...} block per call on stderr and lets the call go on, as the
 * agent does with {@code log=stderr}: a server under load keeps serving and the lines can be
 * counted. The check before the callback is the same in both, so both cost the same where
 * nothing blocks.
 */
final class BlockHoundSupport {
    /** The first words of the line printed once BlockHound is installed and proven to see a loop's calls. */
    static final String INSTALLED = "blockhound: installed";
    /** The first words of each call BlockHound reports in {@link Mode#LOG}. */
    static final String BLOCKING_CALL = "blockhound: blocking call ";
    /** Frames printed under each reported call: enough to see the caller. */
    private static final int FRAMES = 12;

    enum Mode { OFF, LOG, THROW }

    /** The thread of the probe that {@link #prove} runs; its call is neither printed, counted nor let through. */
    private static volatile Thread probe;
    private static final AtomicLong caught = new AtomicLong();
    private static volatile String lastCaught;

    private BlockHoundSupport() {
    }

    /** {@code off}, {@code log} or {@code throw}; anything else is a usage error. */
    static Mode mode(String text) {
        return switch (text) {
            case "off" -> Mode.OFF;
            case "log" -> Mode.LOG;
            case "throw" -> Mode.THROW;
            default -> throw new IllegalArgumentException("--blockhound needs off, log or throw, got '" + text + "'");
        };
    }

    /** Installs BlockHound in {@code mode} (nothing for {@link Mode#OFF}); {@code err} gets the {@link Mode#LOG} blocks. */
    static void install(Mode mode, PrintStream err) {
        if (mode == Mode.OFF) {
            return;
        }
        BlockHound.builder().loadIntegrations()
                .blockingMethodCallback(mode == Mode.LOG ? method -> report(method, err) : BlockHoundSupport::fail)
                .install();
    }

    /** How many blocking calls {@link Mode#THROW} has thrown at so far (the probe's not counted). */
    static long caughtCount() {
        return caught.get();
    }

    /** The method of the last call {@link Mode#THROW} threw at, as BlockHound names it ({@code java.lang.Thread.sleepNanos0}). */
    static String lastCaught() {
        return lastCaught;
    }

    private static void fail(BlockingMethod method) {
        if (Thread.currentThread() != probe) {
            lastCaught = method.toString();
            caught.incrementAndGet();
        }
        throw new BlockingOperationError(method);
    }

    private static void report(BlockingMethod method, PrintStream err) {
        if (Thread.currentThread() == probe) {
            throw new BlockingOperationError(method);
        }
        StringBuilder block = new StringBuilder(BLOCKING_CALL).append(method)
                .append(" on thread '").append(Thread.currentThread().getName()).append("'\n");
        StackTraceElement[] frames = new Throwable().getStackTrace();
        for (int i = 0; i < frames.length && i < FRAMES; i++) {
            block.append("    at ").append(frames[i]).append('\n');
        }
        synchronized (err) {
            err.print(block);
            err.flush();
        }
    }

    /**
     * Proves that BlockHound sees a blocking call on one of {@code group}'s event loops (a
     * comparison with a tool that does not watch the loop would measure nothing), then prints the
     * {@link #INSTALLED} line naming the integrations. Fails if the call got through.
     */
    static void prove(Mode mode, EventLoopGroup group, PrintStream err) throws Exception {
        if (mode == Mode.OFF) {
            return;
        }
        Object[] seen = new Object[2];
        group.next().submit(() -> {
            probe = Thread.currentThread();
            seen[0] = probe.getName();
            try {
                Thread.sleep(1);
            } catch (Throwable thrown) {
                seen[1] = thrown;
            } finally {
                probe = null;
            }
        }).get(10, TimeUnit.SECONDS);
        if (!(seen[1] instanceof BlockingOperationError)) {
            throw new IllegalStateException("BlockHound did not see Thread.sleep on the event loop '" + seen[0] + "': " + seen[1]);
        }
        List<String> integrations = new ArrayList<>();
        ServiceLoader.load(BlockHoundIntegration.class).forEach(integration -> integrations.add(integration.getClass().getName()));
        err.println(INSTALLED + " (" + mode.name().toLowerCase(java.util.Locale.ROOT) + " mode; integrations "
                + String.join(", ", integrations) + "; a Thread.sleep on the event loop '" + seen[0] + "' was caught)");
        err.flush();
    }
}
