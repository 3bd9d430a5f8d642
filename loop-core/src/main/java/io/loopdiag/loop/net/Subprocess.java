package io.loopdiag.loop.net;

import static io.loopdiag.loop.Async.await;

import io.loopdiag.loop.Async;
import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.Future;
import io.loopdiag.loop.Task;
import io.loopdiag.protocol.AwaitKinds;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.util.ArrayList;
import java.util.List;

/**
 * A child process whose standard streams are on the loop (asyncio's
 * {@code create_subprocess_exec} and its {@code Process}): {@link #stdin()} is a
 * {@link StreamWriter}, {@link #stdout()} and {@link #stderr()} are {@link StreamReader}s, with
 * their flow control, and {@link #waitFor()} suspends the calling task until the process exits.
 * Loop thread or a task of the loop only.
 *
 * <p>What it costs: the JDK gives a process's pipes as blocking streams, never as channels a
 * selector can watch. So each piped stream has a platform thread of its own (a 128 KB stack) that
 * copies between it and a {@link java.nio.channels.Pipe} the loop watches, for as long as the
 * stream is open: three threads with every stream piped. Waiting for the exit costs no thread of
 * ours: {@link Process#onExit()} completes on the reaper thread the JDK keeps for every process.
 * A process whose output nobody reads blocks once the pipes are full, as with asyncio:
 * {@link #communicate} reads both while it writes.
 */
public final class Subprocess implements AutoCloseable {
    /** The most a pump copies at once: a pipe's capacity on Linux. */
    private static final int PUMP_CHUNK = 64 * 1024;
    private static final long PUMP_STACK_BYTES = 128 * 1024;

    private final EventLoop loop;
    private final Process process;
    private final String label;
    private final StreamWriter stdin;
    private final StreamReader stdout;
    private final StreamReader stderr;
    private final List<Future<Integer>> exitWaiters = new ArrayList<>();
    private Integer exitCode;

    /** What {@link #communicate} gathered: the exit code and everything the process wrote. */
    public record Output(int exitCode, byte[] stdout, byte[] stderr) {
    }

    private Subprocess(EventLoop loop, ProcessBuilder builder) throws IOException {
        this.loop = loop;
        this.process = builder.start();
        List<String> command = builder.command();
        this.label = "pid " + process.pid() + " (" + String.join(" ", command.subList(0, Math.min(3, command.size())))
                + (command.size() > 3 ? " ..." : "") + ")";
        try {
            stdin = builder.redirectInput() == ProcessBuilder.Redirect.PIPE
                    ? pumpInto(process.getOutputStream(), "stdin of " + label) : null;
            stdout = builder.redirectOutput() == ProcessBuilder.Redirect.PIPE
                    ? pumpFrom(process.getInputStream(), "stdout of " + label) : null;
            stderr = builder.redirectError() == ProcessBuilder.Redirect.PIPE && !builder.redirectErrorStream()
                    ? pumpFrom(process.getErrorStream(), "stderr of " + label) : null;
        } catch (IOException | RuntimeException e) {
            process.destroyForcibly();
            throw e;
        }
        process.onExit().whenComplete((exited, error) -> {
            try {
                loop.callSoonThreadsafe(this::exited);
            } catch (IllegalStateException closedLoop) {
                // Nobody is left to tell.
            }
        });
    }

    /** Starts {@code command} with its three streams piped, on the running loop. */
    public static Subprocess create(String... command) throws IOException {
        return create(new ProcessBuilder(command));
    }

    /**
     * Starts {@code builder}'s command on the running loop. A stream the builder leaves as
     * {@link ProcessBuilder.Redirect#PIPE} (its default) is given here; one it redirects (to a
     * file, inherited, or stderr into stdout) is null.
     */
    public static Subprocess create(ProcessBuilder builder) throws IOException {
        return new Subprocess(Async.loop(), builder);
    }

    /** The process's standard input, or null if it is not piped; {@link StreamWriter#close} sends EOF. */
    public StreamWriter stdin() {
        return stdin;
    }

    /** The process's standard output, or null if it is not piped. */
    public StreamReader stdout() {
        return stdout;
    }

    /** The process's standard error, or null if it is not piped. */
    public StreamReader stderr() {
        return stderr;
    }

    public long pid() {
        return process.pid();
    }

    /** The JDK's handle of the process. */
    public Process process() {
        return process;
    }

    /** The exit code once the loop has seen the process exit, else null (asyncio's {@code returncode}). */
    public Integer exitCode() {
        return exitCode;
    }

    /**
     * Suspends until the process exits and returns its exit code (128 + n if signal n killed it).
     * A dump shows the wait as kind {@code process}. Cancelling the waiting task leaves the
     * process running. Inside a task.
     */
    public int waitFor() throws Exception {
        if (exitCode != null) {
            return exitCode;
        }
        Future<Integer> exit = new Future<>(loop, AwaitKinds.PROCESS, label, this);
        exitWaiters.add(exit);
        try {
            return await(exit);
        } finally {
            exitWaiters.remove(exit);
        }
    }

    /**
     * Writes {@code input} (null: nothing) to stdin and closes it, reads stdout and stderr to their
     * end, both at once so that neither pipe fills, and waits for the exit. A stream that is not
     * piped gives an empty array. Inside a task.
     */
    public Output communicate(byte[] input) throws Exception {
        Task<byte[]> out = readAll(stdout, "stdout");
        Task<byte[]> err = readAll(stderr, "stderr");
        try {
            if (stdin != null) {
                try {
                    if (input != null) {
                        stdin.write(input);
                        stdin.drain();
                    }
                } catch (IOException brokenPipe) {
                    // The process stopped reading and may have exited: its output and exit code tell why.
                } finally {
                    stdin.close();
                }
            }
            return new Output(waitFor(), await(out), await(err));
        } finally {
            out.cancel(); // the caller was cancelled: so are its readers
            err.cancel();
        }
    }

    /** Asks the process to end: SIGTERM on Unix. */
    public void terminate() {
        process.destroy();
    }

    /** Ends the process: SIGKILL on Unix. */
    public void kill() {
        process.destroyForcibly();
    }

    /**
     * Kills the process if it is still running and closes the loop's ends of its pipes, which
     * ends their threads; a task waiting on a stream sees EOF. Idempotent.
     */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
        if (stdin != null) {
            stdin.close();
        }
        if (stdout != null) {
            stdout.connectionLost(null);
        }
        if (stderr != null) {
            stderr.connectionLost(null);
        }
    }

    @Override
    public String toString() {
        return "Subprocess[" + label + (exitCode == null ? ", running" : ", exit " + exitCode) + "]";
    }

    private void exited() {
        exitCode = process.exitValue();
        for (Future<Integer> waiter : exitWaiters) {
            if (!waiter.isDone()) {
                waiter.setResult(exitCode);
            }
        }
    }

    private Task<byte[]> readAll(StreamReader reader, String name) {
        return loop.createTask(name + " of " + label, () -> reader == null ? new byte[0] : reader.read(-1));
    }

    /** A reader of the loop's end of a pipe that a thread fills from {@code in} until it ends. */
    private StreamReader pumpFrom(InputStream in, String name) throws IOException {
        Pipe pipe = Pipe.open();
        pipe.source().configureBlocking(false);
        startPump(name, () -> {
            try (in; Pipe.SinkChannel sink = pipe.sink()) {
                byte[] chunk = new byte[PUMP_CHUNK];
                for (int n = in.read(chunk); n >= 0; n = in.read(chunk)) {
                    ByteBuffer bytes = ByteBuffer.wrap(chunk, 0, n);
                    while (bytes.hasRemaining()) {
                        sink.write(bytes);
                    }
                }
            }
        });
        return new StreamReader(loop, pipe.source(), name, StreamReader.DEFAULT_LIMIT);
    }

    /** A writer to the loop's end of a pipe that a thread empties into {@code out}; EOF closes {@code out}. */
    private StreamWriter pumpInto(OutputStream out, String name) throws IOException {
        Pipe pipe = Pipe.open();
        pipe.sink().configureBlocking(false);
        startPump(name, () -> {
            try (out; Pipe.SourceChannel source = pipe.source()) {
                ByteBuffer chunk = ByteBuffer.allocate(PUMP_CHUNK);
                while (source.read(chunk) >= 0) {
                    out.write(chunk.array(), 0, chunk.position());
                    out.flush();
                    chunk.clear();
                }
            }
        });
        return new StreamWriter(loop, pipe.sink(), name, null);
    }

    private interface Pump {
        void run() throws IOException;
    }

    private static void startPump(String name, Pump pump) {
        Thread.ofPlatform().name("loopdiag pump " + name).daemon().stackSize(PUMP_STACK_BYTES).start(() -> {
            try {
                pump.run();
            } catch (IOException ended) {
                // The other end closed: the process exited or the loop closed its end. Both
                // ends are closed now, which is what each side sees.
            }
        });
    }
}
