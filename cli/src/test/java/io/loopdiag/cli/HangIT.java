package io.loopdiag.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.loopdiag.cli.support.Jvms;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code loopdiag hang} on live services, by process id: what is stuck and why, exit 1; a server
 * that waits for clients is idle, and one under load is moving, exit 0.
 */
@Timeout(120)
class HangIT {
    private final Jvms jvms = new Jvms();

    @AfterEach
    void stopTargets() throws InterruptedException {
        jvms.close();
    }

    @Test
    void aLoopHeldInABlockingCallAndTheRequestsBehindItsLockAreStuck() throws Exception {
        String pid = jvms.start("log=off", "stuck-service").pidText();
        Jvms.Run hang = jvms.cli("hang", "--interval", "300ms", pid);
        assertEquals(ExitCodes.FINDINGS_OR_FAILURE, hang.exitCode(), hang.out() + hang.err());
        String out = hang.out();
        assertTrue(out.startsWith("loopdiag hang: STUCK in JVM " + pid + " (dumps 300 ms apart): 1 loop and 102 tasks stuck, 0 idle, 0 moving\n"),
                out);
        assertTrue(out.matches("(?s).*\nstuck: loop 'stuck-service' #1 has been held in one unit of work for [^:]+: step of Task\\[refresh-cache #3,"
                + " running]\n    at io\\.loopdiag\\.apps\\.StuckService\\.fetchConfigBlocking\\(StuckService\\.java:62\\)\n.*"), out);
        assertTrue(out.matches("(?s).*\nstuck: 100 tasks 'request-0'\\.\\.'request-99' \\[#4\\.\\.#103, suspended, [^]]+] on loop 'stuck-service'\n"
                + "    at io\\.loopdiag\\.apps\\.StuckService\\.lambda\\$main\\$\\d+\\(StuckService\\.java:39\\)\n"
                + "    → lock held by 'refresh-cache' #3: runs the callback its loop has been held in \\(at .*"), out);
    }

    @Test
    void tasksThatAwaitEachOtherAreStuckOnACycleAndASleeperIsIdle() throws Exception {
        String pid = jvms.start("log=off", "await-deadlock").pidText();
        Jvms.Run hang = jvms.cli("hang", "--samples", "2", "--interval", "200ms", pid);
        assertEquals(ExitCodes.FINDINGS_OR_FAILURE, hang.exitCode(), hang.out() + hang.err());
        assertTrue(hang.out().contains("0 loops and 3 tasks stuck, 1 idle, 0 moving\n"), hang.out());
        assertTrue(hang.out().contains("\nstuck: (T) 'main' #1 [suspended, "), hang.out());
        assertTrue(hang.out().contains("    → awaits 'ledger' #2 → awaits 'audit' #3 → awaits 'ledger' #2: a cycle\n"), hang.out());
        assertTrue(hang.out().contains("\nidle: (T) 'heartbeat' #4 [suspended, "), hang.out());
    }

    @Test
    void aServerWaitingForClientsIsIdleAndUnderLoadItIsMovingNeitherIsStuck() throws Exception {
        Jvms.Scenario server = jvms.start("log=off", "echo-server");
        Jvms.Run idle = jvms.cli("hang", "--samples", "2", "--interval", "200ms", server.pidText());
        assertEquals(ExitCodes.OK, idle.exitCode(), idle.out() + idle.err());
        assertTrue(idle.out().startsWith("loopdiag hang: nothing stuck in JVM " + server.pidText()), idle.out());
        assertTrue(idle.out().contains("0 loops and 0 tasks stuck, "), idle.out());

        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong echoes = new AtomicLong();
        CountDownLatch warm = new CountDownLatch(100);
        int port = Integer.parseInt(server.ready().substring(server.ready().lastIndexOf(':') + 1)); // "... listening on 127.0.0.1:PORT"
        Thread load = Thread.ofPlatform().start(() -> {
            try (Socket socket = new Socket("127.0.0.1", port)) {
                OutputStream to = socket.getOutputStream();
                BufferedReader from = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
                while (running.get()) {
                    to.write("ping\n".getBytes(StandardCharsets.UTF_8));
                    to.flush();
                    if (from.readLine() != null) {
                        echoes.incrementAndGet();
                        warm.countDown();
                    }
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        try {
            warm.await();
            long before = echoes.get();
            Jvms.Run busy = jvms.cli("hang", "--samples", "3", "--interval", "200ms", server.pidText());
            assertEquals(ExitCodes.OK, busy.exitCode(), busy.out() + busy.err());
            assertTrue(busy.out().contains(" 0 loops and 0 tasks stuck, "), busy.out());
            assertTrue(echoes.get() > before, "the server served while hang looked: " + before + " then " + echoes.get());
        } finally {
            running.set(false);
            load.join();
        }
    }
}
