package io.loopdiag.agent;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.loopdiag.agent.boot.BlockingCheck;
import java.io.FileDescriptor;
import java.nio.channels.SelectableChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import net.bytebuddy.asm.Advice;

/**
 * The JDK's blocking methods the agent instruments, one row per method, each with the advice that
 * decides whether a call blocks (a sleep of zero does not, a {@code get} of a finished future does
 * not, a non-blocking channel does not). Only Java methods, never natives, so no JVM flag is
 * needed. Checked on JDK 25 (run here); the JDK 21 to 24 rows were checked against those JDKs'
 * sources (see docs/notes/jdk-blocking-entry-points.md): every row exists with the same name and
 * parameters from 21 to 25. A row that matches no method of the running JDK is said by the
 * {@link SelfCheck} at start, not fatal.
 *
 * <p>Most blocking in the JDK ends in {@code LockSupport.park}, so the park rows catch every lock,
 * latch, semaphore, queue, condition and socket wait of a virtual thread; the other rows catch what
 * does not park (sleeps, {@code Object.wait}, file I/O, name lookups) and name the operation at the
 * level the application called it. {@link BlockingCheck} counts only the outermost hooked call.
 */
final class BlockingHooks {
    /** Every row, in table order. */
    static final List<Hook> HOOKS = table();

    private BlockingHooks() {
    }

    private static List<Hook> table() {
        List<Hook> hooks = new ArrayList<>();
        // Thread.sleep: TimeUnit.sleep calls sleep(long,int), which since JDK 21 no longer calls sleep(long) (BlockHound #394).
        hooks.add(hook("java.lang.Thread", "sleep", SleepMillis.class, long.class));
        hooks.add(hook("java.lang.Thread", "sleep", SleepMillisNanos.class, long.class, int.class));
        hooks.add(hook("java.lang.Thread", "sleep", SleepDuration.class, Duration.class));
        hooks.add(hook("java.lang.Thread", "join", Join.class));
        hooks.add(hook("java.lang.Thread", "join", Join.class, long.class));
        hooks.add(hook("java.lang.Thread", "join", Join.class, long.class, int.class));
        hooks.add(hook("java.lang.Thread", "join", Join.class, Duration.class));
        // Object.wait() and wait(long,int) call wait(long), a Java method since JDK 19 (native before).
        hooks.add(hook("java.lang.Object", "wait", Always.class, long.class));
        String lockSupport = "java.util.concurrent.locks.LockSupport";
        hooks.add(hook(lockSupport, "park", Park.class, Object.class));
        hooks.add(hook(lockSupport, "parkNanos", Park.class, Object.class, long.class));
        hooks.add(hook(lockSupport, "parkUntil", Park.class, Object.class, long.class));
        hooks.add(hook(lockSupport, "park", Always.class));
        hooks.add(hook(lockSupport, "parkNanos", Always.class, long.class));
        hooks.add(hook(lockSupport, "parkUntil", Always.class, long.class));
        for (String future : List.of("java.util.concurrent.CompletableFuture", "java.util.concurrent.FutureTask")) {
            hooks.add(hook(future, "get", UnlessDone.class));
            hooks.add(hook(future, "get", UnlessDone.class, long.class, TimeUnit.class));
        }
        hooks.add(hook("java.util.concurrent.CompletableFuture", "join", UnlessDone.class));
        // Sockets: java.net.Socket and ServerSocket run on NioSocketImpl since JDK 13.
        String socket = "sun.nio.ch.NioSocketImpl";
        hooks.add(hook(socket, "connect", Always.class, java.net.SocketAddress.class, int.class));
        hooks.add(hook(socket, "accept", Always.class, java.net.SocketImpl.class));
        hooks.add(hook(socket, "read", Always.class, byte[].class, int.class, int.class));
        hooks.add(hook(socket, "write", Always.class, byte[].class, int.class, int.class));
        String channel = "sun.nio.ch.SocketChannelImpl";
        hooks.add(hook(channel, "connect", IfBlockingChannel.class, java.net.SocketAddress.class));
        hooks.add(hook(channel, "read", IfBlockingChannel.class, java.nio.ByteBuffer.class));
        hooks.add(hook(channel, "read", IfBlockingChannel.class, java.nio.ByteBuffer[].class, int.class, int.class));
        hooks.add(hook(channel, "write", IfBlockingChannel.class, java.nio.ByteBuffer.class));
        hooks.add(hook(channel, "write", IfBlockingChannel.class, java.nio.ByteBuffer[].class, int.class, int.class));
        hooks.add(hook("sun.nio.ch.ServerSocketChannelImpl", "accept", IfBlockingChannel.class));
        String datagram = "sun.nio.ch.DatagramChannelImpl";
        hooks.add(hook(datagram, "receive", IfBlockingChannel.class, java.nio.ByteBuffer.class));
        hooks.add(hook(datagram, "send", IfBlockingChannel.class, java.nio.ByteBuffer.class, java.net.SocketAddress.class));
        // Files: a read or write of a file pins the thread in a native call; nothing parks.
        String in = "java.io.FileInputStream";
        hooks.add(hook(in, "read", Always.class));
        hooks.add(hook(in, "read", Always.class, byte[].class));
        hooks.add(hook(in, "read", Always.class, byte[].class, int.class, int.class));
        hooks.add(hook(in, "skip", Always.class, long.class));
        String out = "java.io.FileOutputStream";
        hooks.add(hook(out, "write", UnlessStandardStream.class, int.class));
        hooks.add(hook(out, "write", UnlessStandardStream.class, byte[].class));
        hooks.add(hook(out, "write", UnlessStandardStream.class, byte[].class, int.class, int.class));
        String file = "java.io.RandomAccessFile";
        hooks.add(hook(file, "read", Always.class));
        hooks.add(hook(file, "read", Always.class, byte[].class));
        hooks.add(hook(file, "read", Always.class, byte[].class, int.class, int.class));
        hooks.add(hook(file, "write", Always.class, int.class));
        hooks.add(hook(file, "write", Always.class, byte[].class));
        hooks.add(hook(file, "write", Always.class, byte[].class, int.class, int.class));
        // java.nio.file.Files reads and writes through FileChannelImpl on the default file system.
        String fileChannel = "sun.nio.ch.FileChannelImpl";
        hooks.add(hook(fileChannel, "read", Always.class, java.nio.ByteBuffer.class));
        hooks.add(hook(fileChannel, "read", Always.class, java.nio.ByteBuffer[].class, int.class, int.class));
        hooks.add(hook(fileChannel, "read", Always.class, java.nio.ByteBuffer.class, long.class));
        hooks.add(hook(fileChannel, "write", Always.class, java.nio.ByteBuffer.class));
        hooks.add(hook(fileChannel, "write", Always.class, java.nio.ByteBuffer[].class, int.class, int.class));
        hooks.add(hook(fileChannel, "write", Always.class, java.nio.ByteBuffer.class, long.class));
        hooks.add(hook(fileChannel, "force", Always.class, boolean.class));
        hooks.add(hook(fileChannel, "transferTo", Always.class, long.class, long.class, java.nio.channels.WritableByteChannel.class));
        hooks.add(hook(fileChannel, "transferFrom", Always.class, java.nio.channels.ReadableByteChannel.class, long.class, long.class));
        hooks.add(hook(fileChannel, "lock", Always.class, long.class, long.class, boolean.class));
        // DatagramSocket runs on DatagramChannelImpl since JDK 15; its blocking receive and send are these.
        hooks.add(hook(datagram, "blockingReceive", Always.class, java.net.DatagramPacket.class, long.class));
        hooks.add(hook(datagram, "blockingSend", Always.class, java.net.DatagramPacket.class));
        // Starting a process forks and waits for the child to exec (Runtime.exec comes here too).
        hooks.add(hook("java.lang.ProcessBuilder", "start", Always.class));
        // Process.waitFor (Unix ProcessImpl): blocks only while the process runs.
        hooks.add(hook("java.lang.ProcessImpl", "waitFor", UnlessExited.class));
        hooks.add(hook("java.lang.ProcessImpl", "waitFor", UnlessExited.class, long.class, TimeUnit.class));
        // Name lookups: reached only on a cache miss (a literal address or a cached name does not block).
        hooks.add(hook("java.net.InetAddress", "getAddressesFromNameService", Always.class, String.class));
        hooks.add(hook("java.net.InetAddress", "getHostFromNameService", Always.class, java.net.InetAddress.class));
        hooks.add(hook("java.net.InetAddress", "getLocalHost", Always.class));
        return List.copyOf(hooks);
    }

    /**
     * The row for {@code className#method(parameters)}: the {@code enter} advice decides whether
     * the call blocks and asks {@link BlockingCheck}; {@link Exit} ends a counted call.
     */
    private static Hook hook(String className, String method, Class<?> enter, Class<?>... parameters) {
        StringBuilder label = new StringBuilder(className).append('#').append(method).append('(');
        for (int i = 0; i < parameters.length; i++) {
            label.append(i > 0 ? "," : "").append(parameters[i].getSimpleName());
        }
        return new Hook(className, label.append(')').toString(), named(method).and(takesArguments(parameters)),
                Advice.to(enter, Exit.class), "calls to it on a loop are not detected");
    }

    // ---- advice: inlined into the JDK's methods, so it may use only JDK types and BlockingCheck ----

    /** The exit shared by every row: a counted call is over. */
    static final class Exit {
        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.Enter boolean counted) {
            if (counted) {
                BlockingCheck.exit();
            }
        }
    }

    static final class Always {
        @Advice.OnMethodEnter
        static boolean enter(@Advice.Origin("#t.#m#s") String operation) {
            return BlockingCheck.enter(operation, null);
        }
    }

    /** A park with a blocker: the blocker names what it waits for, and tells loop-core's own baton wait apart. */
    static final class Park {
        @Advice.OnMethodEnter
        static boolean enter(@Advice.Origin("#t.#m#s") String operation, @Advice.Argument(0) Object blocker) {
            return BlockingCheck.enter(operation, blocker);
        }
    }

    static final class SleepMillis {
        @Advice.OnMethodEnter
        static boolean enter(@Advice.Origin("#t.#m#s") String operation, @Advice.Argument(0) long millis) {
            return millis > 0 && BlockingCheck.enter(operation, null);
        }
    }

    static final class SleepMillisNanos {
        @Advice.OnMethodEnter
        static boolean enter(@Advice.Origin("#t.#m#s") String operation, @Advice.Argument(0) long millis,
                             @Advice.Argument(1) int nanos) {
            return (millis > 0 || nanos > 0) && BlockingCheck.enter(operation, null);
        }
    }

    static final class SleepDuration {
        @Advice.OnMethodEnter
        static boolean enter(@Advice.Origin("#t.#m#s") String operation, @Advice.Argument(0) Duration duration) {
            return duration != null && duration.isPositive() && BlockingCheck.enter(operation, null);
        }
    }

    /** Joining a thread that ended, or oneself, returns at once. */
    static final class Join {
        @Advice.OnMethodEnter
        static boolean enter(@Advice.Origin("#t.#m#s") String operation, @Advice.This Thread target) {
            return target.isAlive() && target != Thread.currentThread() && BlockingCheck.enter(operation, null);
        }
    }

    static final class UnlessDone {
        @Advice.OnMethodEnter
        static boolean enter(@Advice.Origin("#t.#m#s") String operation, @Advice.This java.util.concurrent.Future<?> future) {
            return !future.isDone() && BlockingCheck.enter(operation, null);
        }
    }

    /** A non-blocking channel (every channel loop-core uses) never waits; checked before anything else. */
    static final class IfBlockingChannel {
        @Advice.OnMethodEnter
        static boolean enter(@Advice.Origin("#t.#m#s") String operation, @Advice.This SelectableChannel channel) {
            return channel.isBlocking() && BlockingCheck.enter(operation, null);
        }
    }

    /** Writes to the standard output and error are not counted: a console write is how programs talk. */
    static final class UnlessStandardStream {
        @Advice.OnMethodEnter
        static boolean enter(@Advice.Origin("#t.#m#s") String operation, @Advice.FieldValue("fd") FileDescriptor fd) {
            return fd != FileDescriptor.out && fd != FileDescriptor.err && BlockingCheck.enter(operation, null);
        }
    }

    static final class UnlessExited {
        @Advice.OnMethodEnter
        static boolean enter(@Advice.Origin("#t.#m#s") String operation, @Advice.FieldValue("hasExited") boolean exited) {
            return !exited && BlockingCheck.enter(operation, null);
        }
    }
}
