package io.loopdiag.apps;

import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.createTask;
import static io.loopdiag.loop.Async.gather;
import static io.loopdiag.loop.Async.loop;
import static io.loopdiag.loop.Async.sleep;
import static io.loopdiag.loop.Async.toThread;

import io.loopdiag.loop.Coroutine;
import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.Future;
import io.loopdiag.loop.LoopClock;
import io.loopdiag.loop.Task;
import io.loopdiag.loop.net.Server;
import io.loopdiag.loop.net.Streams;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A loop with nothing to report: the loop-core echo server under load from platform-thread
 * clients that check every echoed byte, while the loop also blocks the right way (on a worker),
 * runs a callback just under the slow limit, retrieves a task's failure late, and awaits a
 * coroutine. Fails (exit 1) if any echo differs.
 */
final class Healthy {
    static final String NAME = "healthy";
    static final String DESCRIPTION = "echo server under load from 50 clients, blocking only on workers: nothing to report";
    private static final String HOST = "127.0.0.1";
    private static final int CLIENTS = 50;
    private static final int MESSAGES_PER_CLIENT = 200;
    private static final int MESSAGE_BYTES = 64;
    /** Under the agent's default 100 ms limit, with room for the sampling's precision. */
    private static final long BUSY_CALLBACK_MILLIS = 90;
    private static final Duration LATER = Duration.ofMillis(20);

    private Healthy() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        EventLoop loop = new EventLoop(NAME, LoopClock.SYSTEM);
        ExecutorService clients = Executors.newThreadPerTaskExecutor(
                Thread.ofPlatform().name("client-", 1).daemon(true).factory());
        try {
            loop.runUntilComplete(loop.createTask("main", () -> serveUnderLoad(clients)));
            loop.shutdownDefaultExecutor();
        } finally {
            clients.shutdownNow();
            loop.close();
        }
        return Main.done(NAME);
    }

    private static Void serveUnderLoad(ExecutorService clients) throws Exception {
        EventLoop loop = loop();
        try (Server server = Streams.startServer(EchoServer::echo, HOST, 0)) {
            List<Future<Void>> load = new ArrayList<>(CLIENTS);
            for (int i = 0; i < CLIENTS; i++) {
                int client = i;
                load.add(loop.runInExecutor(clients, () -> echoClient(server.port(), client)));
            }
            loop.callSoon(Healthy::busyJustUnderTheLimit);
            sleepOnWorker();
            retrieveFailureLate();
            awaitCoroutine();
            await(gather(load, false)); // the first client failure fails the scenario
        }
        return null;
    }

    private static void busyJustUnderTheLimit() {
        SlowCallback.busyWait(BUSY_CALLBACK_MILLIS);
    }

    private static void sleepOnWorker() throws Exception {
        toThread(() -> {
            Thread.sleep(LATER);
            return null;
        });
    }

    private static void retrieveFailureLate() throws Exception {
        Task<Void> failing = createTask("fails-and-is-awaited", Healthy::fail);
        sleep(LATER);
        try {
            await(failing);
        } catch (IllegalStateException expected) {
            return; // retrieved, late: not lost
        }
        throw new IllegalStateException("the task 'fails-and-is-awaited' did not fail");
    }

    private static Void fail() {
        throw new IllegalStateException("expected, and awaited");
    }

    private static void awaitCoroutine() throws Exception {
        int answer = await(Coroutine.of("compute", () -> {
            sleep(Duration.ofMillis(5));
            return 42;
        }));
        if (answer != 42) {
            throw new IllegalStateException("the coroutine returned " + answer);
        }
    }

    /** One client, on a platform thread: sends each message, reads its echo and checks every byte. */
    private static Void echoClient(int port, int client) throws IOException {
        Random random = new Random(client);
        byte[] message = new byte[MESSAGE_BYTES];
        byte[] echoed = new byte[MESSAGE_BYTES];
        try (Socket socket = new Socket(HOST, port)) {
            socket.setTcpNoDelay(true);
            InputStream in = socket.getInputStream();
            OutputStream out = socket.getOutputStream();
            for (int i = 0; i < MESSAGES_PER_CLIENT; i++) {
                random.nextBytes(message);
                out.write(message);
                int n = in.readNBytes(echoed, 0, MESSAGE_BYTES);
                if (n != MESSAGE_BYTES || !Arrays.equals(message, echoed)) {
                    throw new IllegalStateException("client " + client + ": message " + i + " came back different");
                }
            }
            socket.shutdownOutput();
            if (in.read() != -1) {
                throw new IllegalStateException("client " + client + ": the server sent more than it was sent");
            }
        }
        return null;
    }
}
