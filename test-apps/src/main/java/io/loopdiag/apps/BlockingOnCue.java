package io.loopdiag.apps;

import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.LoopClock;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

/**
 * Blocks the loop when told: its loop runs from the start, prints {@code blocking-on-cue ready}
 * from a callback, then for each line N read on stdin makes one {@code Thread.sleep(1)} in a task,
 * N + 1 calls deep (so each N is a distinct finding), and answers {@code blocked N}. At the end of
 * stdin it prints {@code blocking-on-cue done} and exits, so a test decides what happens between
 * two detections, an agent attached to a loop already running included.
 */
final class BlockingOnCue {
    static final String NAME = "blocking-on-cue";
    static final String DESCRIPTION = "each stdin line N: one blocking call N deep on the running loop, answered 'blocked N'";
    private static final int MAX_DEPTH = 1_000;

    private BlockingOnCue() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        EventLoop loop = new EventLoop(NAME, LoopClock.SYSTEM);
        try {
            loop.callSoon(() -> {
                say(NAME + " ready");
                Thread.ofPlatform().daemon().name(NAME + "-stdin").start(() -> readCues(loop));
            });
            loop.runForever(); // until the end of stdin stops it
        } finally {
            loop.close();
        }
        return Main.done(NAME);
    }

    /** Each cue, one at a time, as a task on the loop; then stops the loop. */
    private static void readCues(EventLoop loop) {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                String cue = line.strip();
                int depth = Math.floorMod(Integer.parseInt(cue), MAX_DEPTH);
                CompletableFuture<Void> blocked = new CompletableFuture<>();
                loop.callSoonThreadsafe(() -> loop.createTask("cue", () -> {
                    try {
                        blockAtDepth(depth);
                    } finally {
                        blocked.complete(null);
                    }
                    return null;
                }));
                blocked.join();
                say("blocked " + cue);
            }
        } catch (IOException e) {
            System.err.println(NAME + ": cannot read stdin: " + e.getMessage());
        } finally {
            loop.callSoonThreadsafe(loop::stop);
        }
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private static void blockAtDepth(int depth) throws InterruptedException {
        if (depth > 0) {
            blockAtDepth(depth - 1);
        } else {
            Thread.sleep(1);
        }
    }
}
