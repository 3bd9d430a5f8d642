package io.loopdiag.apps;

import static io.loopdiag.apps.OtherThread.TIMEOUT_MILLIS;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waiting for a {@code java.util.concurrent} future that another thread completes:
 * {@code CompletableFuture.get}, {@code get} with a time-out, {@code join}, and
 * {@code FutureTask.get}. {@link #getOfCompletedFuture} gets a future that is already complete:
 * it does not block, and must not be reported.
 */
final class BlockingFuture {
    static final String NAME = "blocking-future";
    static final String DESCRIPTION = "CompletableFuture.get/join and FutureTask.get in a task";

    private BlockingFuture() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        Blocking.run(NAME, BlockingFuture::operations);
        return Main.done(NAME);
    }

    private static void operations() throws Exception {
        completableFutureGet();
        completableFutureGetWithTimeout();
        completableFutureJoin();
        futureTaskGet();
        getOfCompletedFuture();
    }

    private static void completableFutureGet() throws InterruptedException, ExecutionException {
        completedLater().get();
    }

    private static void completableFutureGetWithTimeout() throws InterruptedException, ExecutionException, TimeoutException {
        completedLater().get(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
    }

    private static void completableFutureJoin() {
        completedLater().join();
    }

    private static void futureTaskGet() throws InterruptedException, ExecutionException {
        FutureTask<String> task = new FutureTask<>(() -> "done");
        OtherThread.after(task::run);
        task.get();
    }

    /** Not blocking: the future is complete before get is called. */
    private static void getOfCompletedFuture() throws InterruptedException, ExecutionException {
        CompletableFuture.completedFuture("done").get();
    }

    private static CompletableFuture<String> completedLater() {
        CompletableFuture<String> future = new CompletableFuture<>();
        OtherThread.after(() -> future.complete("done"));
        return future;
    }
}
