package io.loopdiag.loop.net;

import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.createTask;
import static io.loopdiag.loop.Async.sleep;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.loopdiag.loop.Coroutine;
import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.Task;
import java.io.IOException;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Child processes with their streams on the loop, as asyncio's create_subprocess_exec gives them. */
@Timeout(30)
class SubprocessTest {
    private final EventLoop loop = new EventLoop();

    @AfterEach
    void close() {
        loop.close();
    }

    private <T> T run(Coroutine.Body<T> body) throws Exception {
        return loop.runUntilComplete(Coroutine.of("main", body));
    }

    @Test
    void linesGoInAndComeBackThroughCatAndItsEofEndsIt() throws Exception {
        String echoed = run(() -> {
            Subprocess cat = Subprocess.create("cat");
            cat.stdin().write("one\ntwo\n".getBytes(UTF_8));
            String first = cat.stdout().readLineUtf8();
            String second = cat.stdout().readLineUtf8();
            assertNull(cat.exitCode(), "cat runs until its input ends");
            cat.stdin().close();
            assertEquals("", cat.stdout().readLineUtf8(), "then its output ends");
            return first + second + "exit " + cat.waitFor();
        });
        assertEquals("one\ntwo\nexit 0", echoed);
    }

    @Test
    void theExitCodeAndStandardErrorAreTheProcesses() throws Exception {
        String result = run(() -> {
            Subprocess failing = Subprocess.create("sh", "-c", "echo oops >&2; exit 3");
            String error = failing.stderr().readLineUtf8();
            int exit = failing.waitFor();
            assertEquals(Integer.valueOf(3), failing.exitCode());
            assertEquals(3, failing.waitFor(), "a second wait returns at once");
            assertTrue(failing.stdout().read(-1).length == 0);
            return error + exit;
        });
        assertEquals("oops\n3", result);
    }

    @Test
    void communicateMovesMegabytesBothWaysWithoutEitherPipeFilling() throws Exception {
        byte[] input = new byte[4 << 20];
        new Random(7).nextBytes(input);
        Subprocess.Output output = run(() -> Subprocess.create("sh", "-c", "cat; echo done >&2").communicate(input));
        assertEquals(0, output.exitCode());
        assertArrayEquals(input, output.stdout());
        assertEquals("done\n", new String(output.stderr(), UTF_8));
    }

    @Test
    void aRedirectedStreamIsNotGivenAndMergedErrorsComeOnStdout() throws Exception {
        Subprocess.Output output = run(() -> {
            Subprocess merged = Subprocess.create(new ProcessBuilder("sh", "-c", "echo out; echo err >&2")
                    .redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))));
            assertNull(merged.stderr());
            assertNull(merged.stdin());
            return merged.communicate(null);
        });
        assertEquals("out\nerr\n", new String(output.stdout(), UTF_8));
        assertEquals(0, output.stderr().length);
    }

    @Test
    void cancellingAWaitLeavesTheProcessRunningAndKillingItGivesTheSignalsStatus() throws Exception {
        String result = run(() -> {
            Subprocess sleeper = Subprocess.create("sleep", "600");
            Task<Integer> waiter = createTask("waiter", sleeper::waitFor);
            sleep(Duration.ZERO);
            waiter.cancel();
            sleep(Duration.ZERO);
            boolean aliveAfterCancel = sleeper.process().isAlive();
            sleeper.terminate();
            return aliveAfterCancel + " " + waiter.isCancelled() + " exit " + sleeper.waitFor();
        });
        assertEquals("true true exit 143", result);
    }

    @Test
    void writingToAProcessThatExitedFailsTheDrain() {
        IOException broken = assertThrows(IOException.class, () -> run(() -> {
            Subprocess quitter = Subprocess.create("sh", "-c", "exit 0");
            quitter.waitFor();
            byte[] block = new byte[1 << 16];
            for (int i = 0; i < 64; i++) {
                quitter.stdin().write(block);
                quitter.stdin().drain();
            }
            return null;
        }));
        assertTrue(broken.getMessage().startsWith("send to stdin of pid "), broken.getMessage());
    }

    @Test
    void closeKillsTheProcessEndsItsStreamsAndLeavesNoThreadBehind() throws Exception {
        long pid = run(() -> {
            Subprocess cat = Subprocess.create("cat");
            Task<byte[]> reader = createTask("reader", () -> cat.stdout().read(-1));
            sleep(Duration.ZERO);
            cat.close();
            assertEquals(0, await(reader).length, "a waiting reader sees EOF");
            assertEquals(137, cat.waitFor(), "SIGKILL");
            return cat.pid();
        });
        for (Thread pump : Thread.getAllStackTraces().keySet()) {
            if (pump.getName().contains("pid " + pid + " ")) {
                pump.join(); // the pumps end once their ends close; a pump that did not fails the test's timeout
            }
        }
    }

    @Test
    void aCommandThatCannotRunFailsAtCreate() {
        IOException missing = assertThrows(IOException.class,
                () -> run(() -> Subprocess.create("/no/such/program")));
        assertTrue(missing.getMessage().contains("/no/such/program"), missing.getMessage());
    }
}
