package io.loopdiag.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.loopdiag.protocol.HookPoint;
import io.loopdiag.protocol.LoopCoreHooks;
import java.lang.reflect.Executable;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The methods the agent instruments and the snapshots cut stacks at, named in {@link
 * LoopCoreHooks}, are still loop-core's: a rename fails here, in loop-core's own build, before an
 * agent could miss it.
 */
class HookPointsTest {

    @Test
    void everyHookPointNamesAMethodOfLoopCore() throws ClassNotFoundException {
        List<String> missing = new ArrayList<>();
        for (HookPoint point : LoopCoreHooks.ALL) {
            Class<?> type = Class.forName(point.className());
            boolean found = point.method().equals(HookPoint.CONSTRUCTOR) ? type.getDeclaredConstructors().length > 0
                    : Stream.of(type.getDeclaredMethods()).map(Executable::getName).anyMatch(point.method()::equals);
            if (!found) {
                missing.add(point.toString());
            }
        }
        assertEquals(List.of(), missing, "hook points without their method in loop-core");
    }

    @Test
    void theBatonIsPassedOnTheLoopAndTheBatonFramesAreLoopCoresOwn() {
        assertEquals(EventLoop.class.getName(), LoopCoreHooks.BATON_BLOCKER);
        for (Class<?> type : List.of(EventLoop.class, Task.class, Future.class)) {
            assertTrue(LoopCoreHooks.isBatonFrame(type.getName()), type.getName());
        }
        assertEquals(Task.class.getName(), LoopCoreHooks.TASK);
        assertEquals(Coroutine.class.getName(), LoopCoreHooks.COROUTINE);
    }
}
