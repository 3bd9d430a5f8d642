package io.loopdiag.bench.network;

import io.netty.channel.EventLoop;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.Promise;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.FutureTask;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import reactor.blockhound.BlockingOperationError;

/**
 * {@code corpus --tool loopdiag|blockhound|none}: a list of JDK calls, each run once inside a task
 * on a Netty event loop ({@code eventLoop.submit}), as an application's handler would make them.
 * Each call's setup (its file, socket, helper thread) is made on the main thread first, so that
 * only the call itself runs on the loop; a helper thread releases what the call waits for
 * {@link #RELEASE_MILLIS} after the call has started.
 *
 * <p>Around each call the main thread prints {@code corpus: begin N NAME} and, once the task is
 * done, {@code corpus: end N caught|ran|failed MILLIS DETAIL} on stderr, so that whatever a tool
 * prints on stderr meanwhile (the agent's {@code loopdiag: blocking-call} block, printed on the
 * loop thread before the call goes on) falls between the two. With {@code blockhound},
 * BlockHound is installed in its throwing mode, which throws {@code BlockingOperationError} at a
 * blocking call on the loop; the task catches what the call throws, and {@code caught} means
 * BlockHound threw during the call ({@link BlockHoundSupport#caughtCount}). With
 * {@code loopdiag} (the JVM started with the agent) or {@code none}, the calls run and {@code ran}
 * gives how long each took. {@link CorpusCompare} runs both JVMs and reads their stderr.
 *
 * <p>Two groups: {@link Group#BLOCKS}, calls that wait (on time, another thread, the disk, the
 * network or another process), and {@link Group#DOES_NOT_WAIT}, controls that return without
 * waiting for anything; a tool that reports one of those reports more than blocking.
 */
final class BlockingCorpus {
    static final String BEGIN = "corpus: begin ";
    static final String END = "corpus: end ";
    /** How long a call waits for its helper thread; under the agent's 100 ms slow limit. */
    static final long RELEASE_MILLIS = 50;
    private static final long TASK_TIMEOUT_SECONDS = 10;

    enum Group { BLOCKS, DOES_NOT_WAIT }

    /** One call of the corpus: its name as the table shows it, and how to set it up. */
    record Call(String name, Group group, Setup setup) {
    }

    /** Made on the main thread: what to run on the loop, and what to close after it. */
    @FunctionalInterface
    interface Setup {
        Prepared prepare(Fixture fixture) throws Exception;
    }

    /** What runs on the loop. */
    @FunctionalInterface
    interface Blocking {
        void run() throws Exception;
    }

    record Prepared(Blocking call, List<AutoCloseable> resources) {
        static Prepared of(Blocking call, AutoCloseable... resources) {
            return new Prepared(call, List.of(resources));
        }
    }

    /**
     * One call's surroundings: the loop's thread, a scratch folder, and helper threads that
     * release the call {@link #RELEASE_MILLIS} after it started (timed from its start, not from
     * the setup, so that a loop slow to pick the task up still finds the call waiting).
     */
    static final class Fixture {
        final Thread loopThread;
        final Path directory;
        private final CountDownLatch started = new CountDownLatch(1);
        private final List<Thread> helpers = new ArrayList<>();

        Fixture(Thread loopThread, Path directory) {
            this.loopThread = loopThread;
            this.directory = directory;
        }

        /** Runs {@code release} on a new platform thread {@link #RELEASE_MILLIS} after the call starts. */
        Thread later(Blocking release) {
            return helper(() -> {
                pauseAfterStart();
                release.run();
            });
        }

        /** On a helper: waits for the call to start, then {@link #RELEASE_MILLIS}. */
        void pauseAfterStart() throws InterruptedException {
            started.await(TASK_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            Thread.sleep(RELEASE_MILLIS);
        }

        /** On the loop, just before the call. */
        void markStarted() {
            started.countDown();
        }

        /** Runs {@code body} on a new platform thread now; {@link #joinHelpers} waits for it. */
        Thread helper(Blocking body) {
            Thread helper = Thread.ofPlatform().name("corpus-helper").daemon().start(() -> {
                try {
                    body.run();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            helpers.add(helper);
            return helper;
        }

        void joinHelpers() throws InterruptedException {
            for (Thread helper : helpers) {
                helper.join(TimeUnit.SECONDS.toMillis(TASK_TIMEOUT_SECONDS));
            }
            helpers.clear();
        }

        Path file(String name, int size) throws Exception {
            return Files.write(directory.resolve(name), new byte[size]);
        }
    }

    private BlockingCorpus() {
    }

    /** Every call, in table order. */
    static List<Call> calls() {
        List<Call> calls = new ArrayList<>();
        // Time.
        blocks(calls, "Thread.sleep(long)", f -> Prepared.of(() -> Thread.sleep(RELEASE_MILLIS)));
        blocks(calls, "Thread.sleep(long, int)", f -> Prepared.of(() -> Thread.sleep(RELEASE_MILLIS, 500)));
        blocks(calls, "Thread.sleep(Duration)", f -> Prepared.of(() -> Thread.sleep(Duration.ofMillis(RELEASE_MILLIS))));
        blocks(calls, "TimeUnit.MILLISECONDS.sleep", f -> Prepared.of(() -> TimeUnit.MILLISECONDS.sleep(RELEASE_MILLIS)));
        blocks(calls, "LockSupport.parkNanos(long)", f -> Prepared.of(() -> LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(RELEASE_MILLIS))));
        blocks(calls, "LockSupport.parkNanos(Object, long)", f -> Prepared.of(
                () -> LockSupport.parkNanos(f, TimeUnit.MILLISECONDS.toNanos(RELEASE_MILLIS))));
        blocks(calls, "LockSupport.parkUntil(long)", f -> Prepared.of(
                () -> LockSupport.parkUntil(System.currentTimeMillis() + RELEASE_MILLIS)));
        // Another thread.
        blocks(calls, "Object.wait()", f -> {
            Object lock = new Object();
            boolean[] released = {false};
            f.later(() -> {
                synchronized (lock) {
                    released[0] = true;
                    lock.notifyAll();
                }
            });
            return Prepared.of(() -> {
                synchronized (lock) {
                    while (!released[0]) {
                        lock.wait();
                    }
                }
            });
        });
        blocks(calls, "Object.wait(long)", f -> {
            Object lock = new Object();
            return Prepared.of(() -> {
                synchronized (lock) {
                    lock.wait(RELEASE_MILLIS);
                }
            });
        });
        blocks(calls, "Object.wait(long, int)", f -> {
            Object lock = new Object();
            return Prepared.of(() -> {
                synchronized (lock) {
                    lock.wait(RELEASE_MILLIS, 500);
                }
            });
        });
        blocks(calls, "Thread.join()", f -> {
            Thread worker = f.helper(f::pauseAfterStart);
            return Prepared.of(worker::join);
        });
        blocks(calls, "Thread.join(long)", f -> {
            Thread worker = f.helper(f::pauseAfterStart);
            return Prepared.of(() -> worker.join(10_000));
        });
        blocks(calls, "Thread.join(Duration)", f -> {
            Thread worker = f.helper(f::pauseAfterStart);
            return Prepared.of(() -> worker.join(Duration.ofSeconds(10)));
        });
        blocks(calls, "LockSupport.park()", f -> {
            f.later(() -> LockSupport.unpark(f.loopThread));
            return Prepared.of(LockSupport::park);
        });
        blocks(calls, "LockSupport.park(Object)", f -> {
            f.later(() -> LockSupport.unpark(f.loopThread));
            return Prepared.of(() -> LockSupport.park(f));
        });
        blocks(calls, "CompletableFuture.get()", f -> {
            CompletableFuture<String> future = new CompletableFuture<>();
            f.later(() -> future.complete("done"));
            return Prepared.of(future::get);
        });
        blocks(calls, "CompletableFuture.get(long, TimeUnit)", f -> {
            CompletableFuture<String> future = new CompletableFuture<>();
            f.later(() -> future.complete("done"));
            return Prepared.of(() -> future.get(10, TimeUnit.SECONDS));
        });
        blocks(calls, "CompletableFuture.join()", f -> {
            CompletableFuture<String> future = new CompletableFuture<>();
            f.later(() -> future.complete("done"));
            return Prepared.of(future::join);
        });
        blocks(calls, "FutureTask.get()", f -> {
            FutureTask<String> future = new FutureTask<>(() -> "done");
            f.later(future::run);
            return Prepared.of(future::get);
        });
        blocks(calls, "CountDownLatch.await()", f -> {
            CountDownLatch latch = new CountDownLatch(1);
            f.later(latch::countDown);
            return Prepared.of(latch::await);
        });
        blocks(calls, "Semaphore.acquire()", f -> {
            Semaphore semaphore = new Semaphore(0);
            f.later(semaphore::release);
            return Prepared.of(semaphore::acquire);
        });
        blocks(calls, "ArrayBlockingQueue.take()", f -> {
            ArrayBlockingQueue<String> queue = new ArrayBlockingQueue<>(1);
            f.later(() -> queue.put("item"));
            return Prepared.of(queue::take);
        });
        blocks(calls, "ReentrantLock.lock() (contended)", f -> {
            ReentrantLock lock = new ReentrantLock();
            CountDownLatch held = new CountDownLatch(1);
            f.helper(() -> {
                lock.lock();
                try {
                    held.countDown();
                    f.pauseAfterStart();
                } finally {
                    lock.unlock();
                }
            });
            held.await();
            return Prepared.of(() -> {
                lock.lock();
                lock.unlock();
            });
        });
        blocks(calls, "synchronized (contended)", f -> {
            Object monitor = new Object();
            CountDownLatch held = new CountDownLatch(1);
            f.helper(() -> {
                synchronized (monitor) {
                    held.countDown();
                    f.pauseAfterStart();
                }
            });
            held.await();
            return Prepared.of(() -> {
                synchronized (monitor) {
                    monitor.notifyAll(); // something to do while holding it
                }
            });
        });
        blocks(calls, "Netty Future.await() (another executor's promise)", f -> {
            Promise<String> promise = GlobalEventExecutor.INSTANCE.newPromise();
            f.later(() -> promise.setSuccess("done"));
            return Prepared.of(promise::await);
        });
        // The network.
        blocks(calls, "Socket.connect(SocketAddress)", f -> {
            ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Socket socket = new Socket();
            return Prepared.of(() -> socket.connect(server.getLocalSocketAddress()), socket, server);
        });
        blocks(calls, "Socket.connect(SocketAddress, int)", f -> {
            ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Socket socket = new Socket();
            return Prepared.of(() -> socket.connect(server.getLocalSocketAddress(), 10_000), socket, server);
        });
        blocks(calls, "Socket InputStream.read", f -> {
            Connected pair = Connected.open();
            f.later(() -> pair.accepted.getOutputStream().write(1));
            InputStream in = pair.client.getInputStream();
            return Prepared.of(in::read, pair.client, pair.accepted, pair.server);
        });
        blocks(calls, "Socket OutputStream.write", f -> {
            Connected pair = Connected.open();
            return Prepared.of(() -> pair.client.getOutputStream().write(new byte[64]), pair.client, pair.accepted, pair.server);
        });
        blocks(calls, "ServerSocket.accept", f -> {
            ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Socket client = new Socket();
            f.later(() -> client.connect(server.getLocalSocketAddress(), 10_000));
            return Prepared.of(() -> server.accept().close(), client, server);
        });
        blocks(calls, "SocketChannel.read (blocking mode)", f -> {
            ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            SocketChannel channel = SocketChannel.open(server.getLocalSocketAddress());
            Socket accepted = server.accept();
            f.later(() -> accepted.getOutputStream().write(1));
            return Prepared.of(() -> channel.read(ByteBuffer.allocate(16)), channel, accepted, server);
        });
        blocks(calls, "DatagramSocket.receive", f -> {
            DatagramSocket receiver = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            DatagramSocket sender = new DatagramSocket();
            f.later(() -> sender.send(new DatagramPacket(new byte[8], 8, receiver.getLocalSocketAddress())));
            return Prepared.of(() -> receiver.receive(new DatagramPacket(new byte[64], 64)), receiver, sender);
        });
        blocks(calls, "InetAddress.getByName (not cached)", f -> Prepared.of(() -> InetAddress.getByName("localhost")));
        // The disk.
        blocks(calls, "FileInputStream.read()", f -> {
            FileInputStream in = new FileInputStream(f.file("read1", 4096).toFile());
            return Prepared.of(in::read, in);
        });
        blocks(calls, "FileInputStream.read(byte[])", f -> {
            FileInputStream in = new FileInputStream(f.file("read", 65536).toFile());
            return Prepared.of(() -> in.read(new byte[65536]), in);
        });
        blocks(calls, "FileInputStream.readAllBytes()", f -> {
            FileInputStream in = new FileInputStream(f.file("readAll", 65536).toFile());
            return Prepared.of(in::readAllBytes, in);
        });
        blocks(calls, "FileOutputStream.write(byte[])", f -> {
            FileOutputStream out = new FileOutputStream(f.directory.resolve("write").toFile());
            return Prepared.of(() -> out.write(new byte[65536]), out);
        });
        blocks(calls, "RandomAccessFile.read(byte[])", f -> {
            RandomAccessFile file = new RandomAccessFile(f.file("random", 65536).toFile(), "r");
            return Prepared.of(() -> file.read(new byte[65536]), file);
        });
        blocks(calls, "RandomAccessFile.write(byte[])", f -> {
            RandomAccessFile file = new RandomAccessFile(f.directory.resolve("randomWrite").toFile(), "rw");
            return Prepared.of(() -> file.write(new byte[65536]), file);
        });
        blocks(calls, "Files.readAllBytes", f -> {
            Path path = f.file("files", 65536);
            return Prepared.of(() -> Files.readAllBytes(path));
        });
        blocks(calls, "Files.write", f -> {
            Path path = f.directory.resolve("filesWrite");
            return Prepared.of(() -> Files.write(path, new byte[65536]));
        });
        // Another process.
        blocks(calls, "Process.waitFor()", f -> {
            Process process = new ProcessBuilder("cat").start(); // ends at the end of its input
            f.later(() -> process.getOutputStream().close());
            return Prepared.of(process::waitFor, process::destroyForcibly);
        });
        blocks(calls, "ProcessBuilder.start", f -> {
            List<Process> started = new ArrayList<>();
            return Prepared.of(() -> started.add(new ProcessBuilder("true").start()), () -> {
                for (Process process : started) {
                    process.waitFor();
                }
            });
        });
        // Controls: each returns without waiting for anything.
        control(calls, "Thread.sleep(0)", f -> Prepared.of(() -> Thread.sleep(0)));
        control(calls, "Thread.yield()", f -> Prepared.of(Thread::yield));
        control(calls, "Thread.onSpinWait()", f -> Prepared.of(Thread::onSpinWait));
        control(calls, "CompletableFuture.get() (already done)", f -> {
            CompletableFuture<String> done = CompletableFuture.completedFuture("done");
            return Prepared.of(done::get);
        });
        control(calls, "ReentrantLock.lock() (free)", f -> {
            ReentrantLock lock = new ReentrantLock();
            return Prepared.of(() -> {
                lock.lock();
                lock.unlock();
            });
        });
        control(calls, "Thread.join() (thread ended)", f -> {
            Thread ended = f.helper(() -> { });
            ended.join();
            return Prepared.of(ended::join);
        });
        control(calls, "SocketChannel.read (non-blocking mode)", f -> {
            ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            SocketChannel channel = SocketChannel.open(server.getLocalSocketAddress());
            Socket accepted = server.accept();
            channel.configureBlocking(false);
            return Prepared.of(() -> channel.read(ByteBuffer.allocate(16)), channel, accepted, server);
        });
        return List.copyOf(calls);
    }

    private static void blocks(List<Call> calls, String name, Setup setup) {
        calls.add(new Call(name, Group.BLOCKS, setup));
    }

    private static void control(List<Call> calls, String name, Setup setup) {
        calls.add(new Call(name, Group.DOES_NOT_WAIT, setup));
    }

    /** A client socket connected to a server socket's accepted end, all on the loopback. */
    private record Connected(ServerSocket server, Socket client, Socket accepted) {
        static Connected open() throws Exception {
            ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Socket client = new Socket();
            client.connect(server.getLocalSocketAddress(), 10_000);
            return new Connected(server, client, server.accept());
        }
    }

    /** Runs every call on one Netty event loop, printing the markers on {@code err}; exit 0 unless a call hung. */
    static int run(Options options, PrintStream out, PrintStream err) throws Exception {
        String tool = options.string("tool", "none");
        if (!List.of("loopdiag", "blockhound", "none").contains(tool)) {
            throw new IllegalArgumentException("--tool needs loopdiag, blockhound or none, got '" + tool + "'");
        }
        BlockHoundSupport.Mode blockHound = tool.equals("blockhound") ? BlockHoundSupport.Mode.THROW : BlockHoundSupport.Mode.OFF;
        BlockHoundSupport.install(blockHound, err);
        NioEventLoopGroup group = new NioEventLoopGroup(1);
        Path directory = Files.createTempDirectory("loopdiag-corpus");
        try {
            BlockHoundSupport.prove(blockHound, group, err);
            EventLoop loop = group.next();
            Thread loopThread = loop.submit(Thread::currentThread).get(TASK_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            warmUp();
            err.println("corpus: " + calls().size() + " calls on the Netty event loop '" + loopThread.getName() + "', tool " + tool);
            int number = 0;
            for (Call call : calls()) {
                number++;
                if (!runOne(number, call, loop, new Fixture(loopThread, directory), err)) {
                    return Main.EXIT_FAILED; // the loop is stuck in that call: the rest cannot run
                }
            }
            err.println("corpus: done");
            return Main.EXIT_OK;
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            try (var files = Files.list(directory)) {
                for (Path file : files.toList()) {
                    Files.deleteIfExists(file);
                }
            }
            Files.deleteIfExists(directory);
        }
    }

    /**
     * Initializes on the main thread what the JDK initializes at the first socket connect (the
     * proxy selector, which reads {@code net.properties}): on the loop, BlockHound would throw
     * inside that class's static initializer, which breaks the class for the rest of the JVM and
     * every later socket call with it.
     */
    private static void warmUp() throws Exception {
        Connected pair = Connected.open();
        pair.client.close();
        pair.accepted.close();
        pair.server.close();
    }

    /** One call: set up, begin marker, the task on the loop, end marker, clean up. False if it did not finish. */
    private static boolean runOne(int number, Call call, EventLoop loop, Fixture fixture, PrintStream err) throws Exception {
        Prepared prepared = call.setup().prepare(fixture);
        err.println(BEGIN + number + " " + call.name());
        err.flush();
        String end;
        boolean finished = true;
        try {
            end = loop.submit(() -> runOnLoop(prepared.call(), fixture)).get(TASK_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            end = "failed " + TimeUnit.SECONDS.toMillis(TASK_TIMEOUT_SECONDS) + " did not return within " + TASK_TIMEOUT_SECONDS + " s";
            finished = false;
        }
        err.println(END + number + " " + end);
        err.flush();
        if (finished) {
            for (AutoCloseable resource : prepared.resources()) {
                resource.close();
            }
            fixture.joinHelpers();
        }
        return finished;
    }

    /**
     * On the loop: runs the call and says how it went, {@code caught|ran|failed MILLIS DETAIL}:
     * caught if BlockHound threw during it (with what the call threw if that was not BlockHound's
     * error), failed if it threw anything else.
     */
    private static String runOnLoop(Blocking call, Fixture fixture) {
        long caughtBefore = BlockHoundSupport.caughtCount();
        fixture.markStarted();
        long start = System.nanoTime();
        Throwable thrown = null;
        try {
            call.run();
        } catch (Throwable t) {
            thrown = t;
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        if (BlockHoundSupport.caughtCount() != caughtBefore) {
            String caught = "caught " + millis + " BlockHound: " + BlockHoundSupport.lastCaught();
            return thrown instanceof BlockingOperationError ? caught : caught + "; the call then threw " + thrown;
        }
        return thrown == null ? "ran " + millis : "failed " + millis + " " + thrown;
    }
}
