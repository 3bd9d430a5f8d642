package io.loopdiag.apps;

import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.LoopClock;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * Blocks the loop when told: prints {@code blocking-on-cue ready}, then for each line N read on
 * stdin makes one {@code Thread.sleep(1)} in a loop callback, N + 1 calls deep (so each N is a
 * distinct finding), and answers {@code blocked N}. At the end of stdin it prints {@code
 * blocking-on-cue done} and exits, so a test decides what happens between two detections.
 */
final class BlockingOnCue {
    static final String NAME = "blocking-on-cue";
    static final String DESCRIPTION = "each stdin line N: one blocking call N deep on the loop, answered 'blocked N'";
    private static final int MAX_DEPTH = 1_000;

    private BlockingOnCue() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        EventLoop loop = new EventLoop(NAME, LoopClock.SYSTEM);
        try {
            System.out.println(NAME + " ready");
            System.out.flush();
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                int depth = Math.floorMod(Integer.parseInt(line.strip()), MAX_DEPTH);
                loop.runUntilComplete(loop.createTask("cue", () -> {
                    blockAtDepth(depth);
                    return null;
                }));
                System.out.println("blocked " + line.strip());
                System.out.flush();
            }
        } finally {
            loop.close();
        }
        return Main.done(NAME);
    }

    private static void blockAtDepth(int depth) throws InterruptedException {
        if (depth > 0) {
            blockAtDepth(depth - 1);
        } else {
            Thread.sleep(1);
        }
    }
}
