package io.loopdiag.junit;

import static io.loopdiag.junit.Loops.assertMatches;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.opentest4j.AssertionFailedError;

/**
 * The extension on a loop the agent does not own: a test whose Netty event loop runs a task that
 * sleeps fails, naming the loop's thread, the task and the line; the same sleep on the test's own
 * thread fails nothing.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class NettyIT {

    @Sample
    @LoopdiagCheck
    static class SleepsOnANettyLoop {
        @Test
        void sleepsInATaskOnTheLoop() throws Exception {
            EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("sample-netty"), NioIoHandler.newFactory());
            try {
                group.submit(() -> {
                    Thread.sleep(50); // @line sleepsInATaskOnTheLoop
                    return null;
                }).sync();
            } finally {
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            }
        }

        @Test
        void sleepsOnItsOwnThread() throws Exception {
            Thread.sleep(50);
        }
    }

    @Test
    void aSleepInATaskOnANettyLoopFailsTheTestNamingTheLoopAndTheLine() throws Exception {
        int line = SampleRun.line(SleepsOnANettyLoop.class, "sleepsInATaskOnTheLoop");
        SampleRun.Outcomes outcomes = SampleRun.of(SleepsOnANettyLoop.class);
        assertEquals(List.of("sleepsOnItsOwnThread"), outcomes.passed());
        Throwable failure = outcomes.failureOf("sleepsInATaskOnTheLoop");
        assertInstanceOf(AssertionFailedError.class, failure);
        String message = failure.getMessage();
        List<String> lines = message.lines().toList();
        assertEquals("loopdiag saw 1 finding of blocking-call during this test:", lines.get(0), message);
        assertMatches("loopdiag: blocking-call on loop 'sample-netty-\\d+-1': java\\.lang\\.Thread\\.sleep in task "
                + Pattern.quote("io.loopdiag.junit.NettyIT$SleepsOnANettyLoop (lambda), called at "
                + "io.loopdiag.junit.NettyIT$SleepsOnANettyLoop.lambda$sleepsInATaskOnTheLoop$") + "\\d+"
                + Pattern.quote("(NettyIT.java:" + line + ")"), lines.get(1), message);
        assertEquals(1, Loops.headers(message).size(), "one block: " + message);
    }
}
