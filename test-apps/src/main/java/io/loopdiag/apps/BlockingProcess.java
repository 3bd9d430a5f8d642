package io.loopdiag.apps;

import static io.loopdiag.apps.OtherThread.TIMEOUT_MILLIS;
import static io.loopdiag.loop.Async.toThread;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Waiting for a child process in a task: {@code Process.waitFor()} and {@code waitFor} with a
 * time-out, each on a {@code cat} that a worker started (starting a process forks: no work for
 * the loop). Another thread closes the cat's input only once the waiter is inside
 * {@code waitFor}, so the wait is always real: a process that had already exited (as a short
 * {@code sleep} sometimes had, on a busy machine) is rightly not a blocking call.
 */
final class BlockingProcess {
    static final String NAME = "blocking-process";
    static final String DESCRIPTION = "Process.waitFor, with and without a time-out, in a task";
    private static final List<String> SHORT_PROCESS = List.of(Files.isExecutable(Path.of("/bin/cat")) ? "/bin/cat" : "cat");

    private BlockingProcess() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        Blocking.run(NAME, BlockingProcess::inTask, BlockingProcess::onWorker);
        return Main.done(NAME);
    }

    private static void inTask() throws Exception {
        Thread task = Thread.currentThread();
        waitForProcess(toThread(() -> startShortProcess(task)));
        waitForProcessWithTimeout(toThread(() -> startShortProcess(task)));
    }

    private static void onWorker() throws Exception {
        waitForProcess(startShortProcess(Thread.currentThread()));
        waitForProcessWithTimeout(startShortProcess(Thread.currentThread()));
    }

    /** A {@code cat} that ends once {@code waiter} waits for it. */
    private static Process startShortProcess(Thread waiter) throws IOException {
        Process process = new ProcessBuilder(SHORT_PROCESS).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        // The cat reads the end of its input and exits.
        OtherThread.when(waiter, BlockingProcess::isWaitingForAProcess, () -> process.getOutputStream().close());
        return process;
    }

    private static boolean isWaitingForAProcess(Thread thread) {
        for (StackTraceElement frame : thread.getStackTrace()) {
            if (frame.getClassName().equals("java.lang.ProcessImpl") && frame.getMethodName().equals("waitFor")) {
                return true;
            }
        }
        return false;
    }

    private static void waitForProcess(Process process) throws InterruptedException {
        checkExit(process.waitFor());
    }

    private static void waitForProcessWithTimeout(Process process) throws InterruptedException {
        if (!process.waitFor(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException(SHORT_PROCESS + " did not exit within " + TIMEOUT_MILLIS + " ms");
        }
        checkExit(process.exitValue());
    }

    private static void checkExit(int exitCode) {
        if (exitCode != 0) {
            throw new IllegalStateException(SHORT_PROCESS + " exited with " + exitCode);
        }
    }
}
