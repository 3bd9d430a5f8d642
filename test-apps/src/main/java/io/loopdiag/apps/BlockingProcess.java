package io.loopdiag.apps;

import static io.loopdiag.apps.OtherThread.DELAY_MILLIS;
import static io.loopdiag.apps.OtherThread.TIMEOUT_MILLIS;
import static io.loopdiag.loop.Async.toThread;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Waiting for a child process in a task: {@code Process.waitFor()} and {@code waitFor} with a
 * time-out, each on a {@code sleep 0.01} that a worker started (starting a process forks: no work
 * for the loop). Not {@code true}: it often exits before the task calls waitFor, which then
 * returns without waiting.
 */
final class BlockingProcess {
    static final String NAME = "blocking-process";
    static final String DESCRIPTION = "Process.waitFor, with and without a time-out, in a task";
    private static final List<String> SHORT_PROCESS = List.of(
            Files.isExecutable(Path.of("/bin/sleep")) ? "/bin/sleep" : "sleep", String.valueOf(DELAY_MILLIS / 1000.0));

    private BlockingProcess() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        Blocking.run(NAME, BlockingProcess::inTask, BlockingProcess::onWorker);
        return Main.done(NAME);
    }

    private static void inTask() throws Exception {
        waitForProcess(toThread(BlockingProcess::startShortProcess));
        waitForProcessWithTimeout(toThread(BlockingProcess::startShortProcess));
    }

    private static void onWorker() throws Exception {
        waitForProcess(startShortProcess());
        waitForProcessWithTimeout(startShortProcess());
    }

    private static Process startShortProcess() throws IOException {
        return new ProcessBuilder(SHORT_PROCESS).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
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
