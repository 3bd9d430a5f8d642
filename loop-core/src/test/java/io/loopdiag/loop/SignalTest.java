package io.loopdiag.loop;

import static io.loopdiag.loop.Async.createTask;
import static io.loopdiag.loop.Async.sleep;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * asyncio's add_signal_handler and asyncio.run's Ctrl-C, with real signals: the test raises
 * SIGWINCH, which a process ignores by default, so that a stray one harms nothing; SIGINT and
 * SIGTERM go to a child JVM.
 */
@Timeout(30)
class SignalTest {
    private static final Signal WINCH = new Signal("WINCH");

    private final EventLoop loop = new EventLoop();
    /** What the handler the loop replaces saw. */
    private final BlockingQueue<String> replacedSaw = new LinkedBlockingQueue<>();
    private SignalHandler original;

    @BeforeEach
    void handleWinchOutsideTheLoop() {
        original = Signal.handle(WINCH, signal -> replacedSaw.add("SIG" + signal.getName()));
    }

    @AfterEach
    void restore() {
        loop.close();
        Signal.handle(WINCH, original);
    }

    @Test
    void theCallbackRunsOnTheLoopAsACallbackNamedAfterTheSignal() throws Exception {
        Future<String> ran = loop.createFuture();
        loop.addSignalHandler("SIGWINCH", () -> {
            assertSame(loop, EventLoop.current());
            ran.setResult(Handle.describe(loop.currentCallback()));
        });
        loop.callSoon(() -> Signal.raise(WINCH));
        String callback = loop.runUntilComplete(ran);
        assertTrue(callback.startsWith("SIGWINCH handler io.loopdiag.loop.SignalTest"), callback);
        assertNull(replacedSaw.poll(), "the handler it replaced does not see the signal");
    }

    @Test
    void removingTheHandlerPutsBackTheOneItReplaced() throws Exception {
        loop.addSignalHandler("WINCH", () -> { });
        loop.addSignalHandler("WINCH", () -> { }); // a second add replaces the loop's own handler
        assertTrue(loop.removeSignalHandler("WINCH"));
        assertFalse(loop.removeSignalHandler("WINCH"));
        Signal.raise(WINCH);
        assertEquals("SIGWINCH", replacedSaw.poll(10, TimeUnit.SECONDS));
    }

    @Test
    void aSignalHasOneLoopAtATimeAndClosingTheLoopReleasesIt() throws Exception {
        loop.addSignalHandler("WINCH", () -> { });
        try (EventLoop other = new EventLoop("other", LoopClock.SYSTEM)) {
            IllegalStateException taken = assertThrows(IllegalStateException.class,
                    () -> other.addSignalHandler("WINCH", () -> { }));
            assertEquals("SIGWINCH is handled by event loop '" + loop.name() + "': a signal has one handler per process",
                    taken.getMessage());
            assertFalse(other.removeSignalHandler("WINCH"), "nor can another loop remove it");
            loop.close();
            other.addSignalHandler("WINCH", () -> { });
        }
        Signal.raise(WINCH);
        assertEquals("SIGWINCH", replacedSaw.poll(10, TimeUnit.SECONDS), "each close put back what it replaced");
    }

    @Test
    void aSignalThePlatformLacksOrTheJvmKeepsIsRefusedInOneLine() {
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> loop.addSignalHandler("NOSUCH", () -> { }));
        assertEquals("no signal SIGNOSUCH on this platform", unknown.getMessage());
        IllegalArgumentException kept = assertThrows(IllegalArgumentException.class,
                () -> loop.addSignalHandler("QUIT", () -> { }));
        assertTrue(kept.getMessage().startsWith("cannot handle SIGQUIT: "), kept.getMessage());
        assertFalse(kept.getMessage().contains("\n"));
    }

    @Test
    void runCancelsTheMainTaskOnTheSignalCleansUpEveryTaskAndSaysWhichSignal() {
        List<String> log = new ArrayList<>();
        StoppedBySignalException stopped = assertThrows(StoppedBySignalException.class, () -> EventLoop.run(() -> {
            createTask("worker", () -> {
                try {
                    sleep(Duration.ofHours(1));
                } finally {
                    log.add("worker cleaned up");
                }
                return null;
            });
            sleep(Duration.ZERO);
            Signal.raise(WINCH);
            try {
                sleep(Duration.ofHours(1));
            } finally {
                log.add("main cleaned up");
            }
            return null;
        }, "WINCH"));
        assertEquals(List.of("main cleaned up", "worker cleaned up"), log);
        assertEquals("stopped by SIGWINCH", stopped.getMessage());
        assertEquals(128 + WINCH.getNumber(), stopped.exitStatus());
        assertNull(replacedSaw.poll());
    }

    @Test
    void aMainTaskThatRefusesTheCancellationReturnsItsResult() throws Exception {
        String result = EventLoop.run(() -> {
            Signal.raise(WINCH);
            try {
                sleep(Duration.ofHours(1));
            } catch (CancelledException cancelled) {
                return "finished the request first";
            }
            return "never cancelled";
        }, "WINCH");
        assertEquals("finished the request first", result);
    }

    @Test
    void aSecondSignalGoesToTheReplacedHandlerEvenWhileTheLoopIsBlocked() throws Exception {
        String result = EventLoop.run(() -> {
            Signal.raise(WINCH);
            try {
                sleep(Duration.ofHours(1));
            } catch (CancelledException cancelled) {
                Signal.raise(WINCH);
                // Blocks the loop on purpose: only a handler that does not wait for it can answer.
                return replacedSaw.poll(20, TimeUnit.SECONDS);
            }
            return "never cancelled";
        }, "WINCH");
        assertEquals("SIGWINCH", result);
    }

    @Test
    void sigtermAndSigintStopAServiceCleanlyWithTheShellsExitStatus() throws Exception {
        assertEquals(List.of("serving", "main cleaned up", "stopped by SIGTERM", "exit 143"), stopChild("TERM"));
        assertEquals(List.of("serving", "main cleaned up", "stopped by SIGINT", "exit 130"), stopChild("INT"));
    }

    /** Starts {@link Service}, sends it {@code signal} once it serves, and returns its output and exit status. */
    private static List<String> stopChild(String signal) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"), Service.class.getName())
                .redirectErrorStream(true).start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), UTF_8))) {
            lines.add(out.readLine());
            // Process.destroy sends SIGTERM too, but closes the child's output first.
            new ProcessBuilder("sh", "-c", "kill -" + signal + " " + child.pid()).inheritIO().start().waitFor();
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                lines.add(line);
            }
        } finally {
            child.destroyForcibly();
        }
        lines.add("exit " + child.waitFor());
        return lines;
    }

    /** A service as its main method should be written: asyncio.run's Ctrl-C, in Java. */
    public static final class Service {
        public static void main(String[] args) throws Exception {
            try {
                EventLoop.run(() -> {
                    System.out.println("serving");
                    try {
                        sleep(Duration.ofHours(1));
                    } finally {
                        System.out.println("main cleaned up");
                    }
                    return null;
                }, "INT", "TERM");
            } catch (StoppedBySignalException stopped) {
                System.out.println(stopped.getMessage());
                System.exit(stopped.exitStatus());
            }
        }
    }
}
